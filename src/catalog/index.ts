// The resource catalog: Terraform resource type -> kind. Built in, plus the design's additions.
import { BUILTIN_CATALOG } from './builtin.js';

export { BUILTIN_CATALOG, BUILTIN_KINDS, BUILTIN_TYPES_BY_KIND, type BuiltinKind } from './builtin.js';

/**
 * The catalog a design is judged with: the built-in table, with the design's `catalog` entries added or
 * overriding built-in ones. Keys are sorted, so the result (and a bundle's data.json) is deterministic.
 */
export function effectiveCatalog(design: { catalog?: Record<string, string> }): Record<string, string> {
  const merged: Record<string, string> = { ...BUILTIN_CATALOG, ...(design.catalog ?? {}) };
  return Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((type) => [type, merged[type] as string]),
  );
}

/** Every kind a design may sanction: the built-in kinds and the kinds its own catalog introduces. */
export function knownKinds(design: { catalog?: Record<string, string> }): Set<string> {
  return new Set([...Object.values(BUILTIN_CATALOG), ...Object.values(design.catalog ?? {})]);
}
