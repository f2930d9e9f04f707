// The repositories' SQL is written once, in PostgreSQL's dialect; the embedded store (SQLite) runs it through
// this translation of a closed list of constructs. Chosen over a portable subset because the shared SQL then
// reads as ordinary PostgreSQL (the store for many instances), and every construct SQLite needs differently is
// listed here, each with a test (test/service/dialect.test.ts). Anything else is passed through unchanged and
// fails loudly in SQLite's parser, on the first test of the query that uses it on the embedded store.
//
// Stored values on SQLite: timestamps as ISO 8601 text in UTC with milliseconds (what toISOString() writes, so
// text order is time order), JSON as text, bytea as BLOB, integer keys as INTEGER PRIMARY KEY AUTOINCREMENT
// (ids never reused: the audit log's order by number holds).

/** The current time on SQLite, in the same text form as Date.prototype.toISOString(). */
export const SQLITE_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

type Rule = readonly [pattern: RegExp, replacement: string | ((...match: string[]) => string)];

const RULES: readonly Rule[] = [
  // now() + ($n::int * interval '1 millisecond'): a time a number of milliseconds from now (leases, claims).
  [
    /\bnow\(\)\s*\+\s*\(\$(\d+)::int\s*\*\s*interval '1 millisecond'\)/gi,
    (_m, n) => `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', (?${n} / 1000.0) || ' seconds')`,
  ],
  // A column default is an expression in parentheses on SQLite.
  [/\bDEFAULT now\(\)/gi, `DEFAULT (${SQLITE_NOW})`],
  [/\bnow\(\)/gi, SQLITE_NOW],
  // serial keys: SQLite's rowid alias, never reusing an id (AUTOINCREMENT), so later rows have larger ids.
  [/\b(?:big)?serial PRIMARY KEY\b/gi, 'INTEGER PRIMARY KEY AUTOINCREMENT'],
  // Row locks: the embedded store runs one transaction at a time (sqlite.ts), so there is nothing to lock.
  [/\s+FOR (?:NO KEY )?UPDATE(?: OF \w+)?(?: SKIP LOCKED)?/gi, ''],
  // x = ANY($n::text[]): the array parameter is bound as JSON text (sqlite.ts), read back by json_each.
  [/=\s*ANY\(\$(\d+)(?:::\w+\[\])?\)/gi, (_m, n) => `IN (SELECT value FROM json_each(?${n}))`],
  // A column's or a parameter's cast to text or an integer: CAST (audit ids as text, page cursors as numbers).
  [
    /(\$\d+|\b[a-z_]\w*(?:\.[a-z_]\w*)?)::(text|bigint|integer|int)\b(?!\[)/gi,
    (_m, operand, type) => `CAST(${operand} AS ${type})`,
  ],
  // Other casts: JSON is text, count(*) is an integer, timestamps are text already.
  [/::(?:jsonb|json|int|integer|bigint|text|timestamptz)\b/gi, ''],
  // Numbered parameters: $n is a named parameter on SQLite, ?n is the numbered one.
  [/\$(\d+)/g, (_m, n) => `?${n}`],
  // A bare alias after UPDATE's table needs AS on SQLite.
  [/\bUPDATE (\w+) (?!AS\b|SET\b)(\w+) SET\b/gi, (_m, table, alias) => `UPDATE ${table} AS ${alias} SET`],
];

/** SQLite's RETURNING names the written table's columns unqualified: drop the alias of INSERT or UPDATE. */
function unqualifyReturning(sql: string): string {
  const alias = /\b(?:UPDATE|INSERT INTO) \w+ AS (\w+)\b/i.exec(sql)?.[1];
  const returning = /\bRETURNING\b/i.exec(sql);
  if (!alias || !returning) return sql;
  const tail = sql.slice(returning.index).replace(new RegExp(`\\b${alias}\\.`, 'g'), '');
  return sql.slice(0, returning.index) + tail;
}

/** Statements with no effect on SQLite: advisory locks (one process owns the data dir). */
const NO_OP = /^\s*SELECT pg_advisory_xact_lock\(\$\d+\)\s*;?\s*$/i;

/** The SQLite statement (or script) for a PostgreSQL one, or null when it has nothing to do on SQLite. */
export function toSqlite(sql: string): string | null {
  if (NO_OP.test(sql)) return null;
  let out = sql;
  for (const [pattern, replacement] of RULES) {
    out = out.replace(pattern, replacement as (substring: string, ...args: string[]) => string);
  }
  return unqualifyReturning(out);
}
