// How a proposed design differs from the approved one, by kind, capability and catalog entry. One function
// for `tfgate design diff` and the dashboard, so both show the same thing.
import type { Design } from './index.js';

export interface DesignChanges {
  /** No difference in kinds, capabilities or catalog. */
  identical: boolean;
  kinds: { added: string[]; removed: string[] };
  capabilities: {
    added: string[];
    removed: string[];
    changed: Array<{ name: string; depends_on_added: string[]; depends_on_removed: string[] }>;
  };
  catalog: { added: string[]; removed: string[]; changed: string[] };
}

/** What `to` has and `from` lacks, sorted, once each. */
const added = (from: Iterable<string>, to: Iterable<string>): string[] => {
  const before = new Set(from);
  return [...new Set(to)].filter((x) => !before.has(x)).sort();
};

/** The changes from `approved` to `proposed`. */
export function compareDesigns(approved: Design, proposed: Design): DesignChanges {
  const kinds = {
    added: added(approved.sanctioned_kinds, proposed.sanctioned_kinds),
    removed: added(proposed.sanctioned_kinds, approved.sanctioned_kinds),
  };
  const before = new Map(approved.capabilities.map((c) => [c.name, c.depends_on]));
  const after = new Map(proposed.capabilities.map((c) => [c.name, c.depends_on]));
  const changed = [...after]
    .filter(([name]) => before.has(name))
    .map(([name, deps]) => ({
      name,
      depends_on_added: added(before.get(name) ?? [], deps),
      depends_on_removed: added(deps, before.get(name) ?? []),
    }))
    .filter((c) => c.depends_on_added.length + c.depends_on_removed.length > 0)
    .sort((a, b) => a.name.localeCompare(b.name));
  const capabilities = {
    added: added(before.keys(), after.keys()),
    removed: added(after.keys(), before.keys()),
    changed,
  };
  const catalog = {
    added: added(Object.keys(approved.catalog), Object.keys(proposed.catalog)),
    removed: added(Object.keys(proposed.catalog), Object.keys(approved.catalog)),
    changed: Object.keys(proposed.catalog)
      .filter((t) => approved.catalog[t] !== undefined && approved.catalog[t] !== proposed.catalog[t])
      .sort(),
  };
  const identical = [
    kinds.added,
    kinds.removed,
    capabilities.added,
    capabilities.removed,
    changed,
    catalog.added,
    catalog.removed,
    catalog.changed,
  ].every((list) => list.length === 0);
  return { identical, kinds, capabilities, catalog };
}
