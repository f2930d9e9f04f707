// The one small seam between the service and its database: parameterised SQL and transactions.
// The SQL is PostgreSQL's, shared by both backends: the embedded one (sqlite.ts) runs it through dialect.ts.

export interface SqlRows<T> {
  rows: T[];
}

export interface SqlExecutor {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<SqlRows<T>>;
  /** Runs a multi-statement script without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface SqlClient extends SqlExecutor {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly kind: 'embedded' | 'postgres';
}

/** A driver (a node-postgres pool or client) as the seam; scripts run through `query` unless given. */
export function sqlExecutor(
  driver: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> },
  exec: (script: string) => Promise<unknown> = (script) => driver.query(script),
): SqlExecutor {
  return {
    async query<T>(text: string, params: unknown[] = []): Promise<SqlRows<T>> {
      const result = await driver.query(text, params);
      return { rows: result.rows as T[] };
    },
    async exec(script: string): Promise<void> {
      await exec(script);
    },
  };
}
