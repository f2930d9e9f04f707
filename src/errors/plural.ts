// Counts in messages and reports read as English: "1 finding", "2 findings", "0 findings"; never
// "1 findings" or "finding(s)". The one place a count gets its noun.

/** The noun for a count: `one` for exactly 1, else `many` (by default `one` with an "s"). */
export function nounFor(count: number, one: string, many = `${one}s`): string {
  return count === 1 ? one : many;
}

/** A count with its noun: `plural(1, 'finding')` is "1 finding", `plural(2, 'finding')` "2 findings". */
export function plural(count: number, one: string, many?: string): string {
  return `${count} ${nounFor(count, one, many)}`;
}
