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

/**
 * The same for a state: an empty decoy `child_modules` first, then the real one under an escaped key (78
 * bytes), so a reader matching raw key bytes sees no child module resources.
 */
export function hiddenModulesState(stateJson: string): string {
  const marker = '"child_modules":';
  if (!stateJson.includes(marker)) throw new Error('the state has no child modules to hide');
  return stateJson.replace(marker, `${marker}[],"${escapeEvery('child_modules')}":`);
}
