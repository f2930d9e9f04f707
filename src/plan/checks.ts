// Small value checks shared by the plan and state schemas. Each returns what was expected, or undefined.
import type { Problem } from './scanner/index.js';

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  return `a ${typeof value}`;
}

/** A short, safe rendering of a value for messages (kept values only: never secrets). */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}

export function isString(value: unknown): Problem | undefined {
  return typeof value === 'string' ? undefined : { message: `expected a string, found ${typeName(value)}` };
}

export function isNonEmptyString(value: unknown): Problem | undefined {
  if (typeof value !== 'string') return { message: `expected a string, found ${typeName(value)}` };
  return value === '' ? { message: 'expected a non-empty string, found ""' } : undefined;
}

export function isMode(value: unknown): Problem | undefined {
  if (value === 'managed' || value === 'data') return undefined;
  return {
    message: `expected "managed" or "data", found ${typeof value === 'string' ? quote(value) : typeName(value)}`,
  };
}

/** An instance key: a count index (integer) or a for_each key (string). */
export function isInstanceIndex(value: unknown): Problem | undefined {
  if (typeof value === 'string') return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return undefined;
  return { message: `expected a string or a non-negative integer, found ${typeName(value)}` };
}

export function isObject(value: unknown): Problem | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? undefined
    : { message: `expected an object, found ${typeName(value)}` };
}

/** format_version of `terraform show -json`: "1.x" for every Terraform 0.12+ and OpenTofu release. */
export function isFormatVersion(value: unknown): Problem | undefined {
  if (typeof value !== 'string')
    return { message: `expected a string such as "1.2", found ${typeName(value)}` };
  return /^1\.\d+$/.test(value)
    ? undefined
    : { message: `unsupported format_version ${quote(value)}: tfgate reads format 1.x` };
}

/** Names of required fields missing from a kept object, as `"a", "b"`; undefined when none. */
export function missingFields(
  value: Record<string, unknown>,
  required: readonly string[],
): Problem | undefined {
  let all = true;
  for (let k = 0; k < required.length; k++) if (!(required[k]! in value)) all = false;
  if (all) return undefined; // the usual case, without allocating
  const missing = required.filter((field) => !(field in value));
  const names = missing.map((field) => `"${field}"`).join(', ');
  return { message: `missing required field${missing.length > 1 ? 's' : ''} ${names}` };
}
