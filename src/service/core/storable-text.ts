// Text PostgreSQL cannot store: `text` and `jsonb` refuse U+0000, and `jsonb` refuses an unpaired surrogate
// (valid in JSON's grammar, `"\ud800"`, but not a character). Found before a write, so the caller gets a
// 400 that says where, never the database's 500.
import { ServiceError } from './errors.js';

export interface UnstorableText {
  /** Where, as a dotted path from the document's root (printable: controls and surrogates shown as "?"). */
  path: string;
  /** What, in plain words. */
  problem: string;
}

/** With the u flag a surrogate matches only when unpaired: a pair is one astral code point. */
const LONE_SURROGATE = /\p{Cs}/u;
const UNPRINTABLE = /\p{Cc}|\p{Cs}/gu;

function problemIn(text: string): string | undefined {
  if (text.includes('\u0000')) return 'a NUL character (U+0000)';
  const lone = LONE_SURROGATE.exec(text);
  return lone ? `an unpaired surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()})` : undefined;
}

/** A path as a linked list from the leaf up: O(1) per step, so a deep document costs no copying. */
interface PathLink {
  key: string;
  parent: PathLink | undefined;
}

function pathText(link: PathLink | undefined): string {
  const keys: string[] = [];
  for (let at = link; at; at = at.parent) keys.push(at.key);
  return dottedPathText(keys.reverse());
}

/** Keys from the root as the dotted path messages show (controls and surrogates as "?"). */
export function dottedPathText(keys: readonly string[]): string {
  return keys.join('.').replace(UNPRINTABLE, '?');
}

/**
 * The first string (object keys included) that cannot be stored, or undefined. Walks with an explicit
 * stack, so a deeply nested document cannot overflow the call stack.
 */
export function findUnstorableText(value: unknown): UnstorableText | undefined {
  const stack: Array<{ value: unknown; path: PathLink | undefined }> = [{ value, path: undefined }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = problemIn(current);
      if (problem) return { path: pathText(path), problem };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i], path: { key: String(i), parent: path } });
      }
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      for (const [key] of entries) {
        const problem = problemIn(key);
        if (problem) return { path: pathText({ key, parent: path }), problem: `a key with ${problem}` };
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push({ value: entries[i]![1], path: { key: entries[i]![0], parent: path } });
      }
    }
  }
  return undefined;
}

/** The 400 of `code` for text the store cannot hold, saying what and where. */
export function unstorableTextError(code: string, what: string, found: UnstorableText): ServiceError {
  const where = found.path === '' ? '' : ` at "${found.path}"`;
  return new ServiceError(
    400,
    code,
    `${what} holds ${found.problem}${where}, which cannot be stored (PostgreSQL refuses it); remove it`,
    { details: { path: found.path } },
  );
}

/** Refuses `value` with a 400 of `code` when it holds text the store cannot hold, saying what and where. */
export function refuseUnstorableText(value: unknown, code: string, what: string): void {
  const found = findUnstorableText(value);
  if (found) throw unstorableTextError(code, what, found);
}
