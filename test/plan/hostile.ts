// Hostile rewritings of plan and state JSON that JSON.parse (and OPA) still read as the same document.

/** Every character of `text` as a `\uXXXX` escape: `resource_changes` becomes 96 bytes of escapes. */
export function escapeEvery(text: string): string {
  return [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
}

/** The JSON text with every key `"name"` written with escapes only; JSON.parse reads the same document. */
export function escapeKey(json: string, name: string): string {
  const written = json.replaceAll(`"${name}":`, `"${escapeEvery(name)}":`);
  if (written === json) throw new Error(`no key "${name}" in the JSON`);
  return written;
}

/**
 * A plan that hides its resource changes from a reader matching raw key bytes: the `resource_changes` key is
 * escaped, and a decoy empty `resource_changes` comes first (JSON.parse keeps the last one).
 */
export function hiddenChangesPlan(planJson: string): string {
  const plan = JSON.parse(planJson) as Record<string, unknown>;
  if (!Array.isArray(plan.resource_changes) || plan.resource_changes.length === 0)
    throw new Error('the plan has no resource changes to hide');
  const { resource_changes: changes, ...rest } = plan;
  const head = JSON.stringify({ resource_changes: [], ...rest }).slice(0, -1);
  return `${head},"${escapeEvery('resource_changes')}":${JSON.stringify(changes)}}`;
}

/** The same for a state: the `values` key escaped after an empty decoy. */
export function hiddenResourcesState(stateJson: string): string {
  const state = JSON.parse(stateJson) as Record<string, unknown>;
  const { values, ...rest } = state;
  if (values === undefined) throw new Error('the state has no values to hide');
  const head = JSON.stringify({ ...rest, values: { root_module: {} } }).slice(0, -1);
  return `${head},"${escapeEvery('values')}":${JSON.stringify(values)}}`;
}
