// YAML in and out for the places that need it on demand (a plan map, `design show`). Import this module
// lazily, never the yaml package itself: the bundled CLI (esbuild) turns a dynamic import of that CommonJS
// package into a module with only a default export, while this ESM module keeps its named exports.
import { parse, stringify } from 'yaml';
import { lineNestedDeeperThan, MAX_DESIGN_NESTING } from './nesting.js';

/** YAML (or JSON, which is YAML) text → value; aliases bounded against expansion bombs, nesting against the stack. */
export function parseYamlText(text: string): unknown {
  const deepAt = lineNestedDeeperThan(text);
  if (deepAt !== undefined) throw new Error(`line ${deepAt} nests deeper than ${MAX_DESIGN_NESTING} levels`);
  return parse(text, { maxAliasCount: 100 });
}

/** A value as YAML text. */
export function toYamlText(value: unknown): string {
  return stringify(value);
}
