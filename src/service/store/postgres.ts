// PostgreSQL backend (node-postgres pool), for many instances sharing one database.
import pg from 'pg';
import { type SqlClient, sqlExecutor } from './sql.js';

// Timestamps come back as Date and counts are cast to int in SQL, so both backends return the same shapes.
export async function openPostgres(connectionString: string, poolSize = 10): Promise<SqlClient> {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  // Fail at start-up, not on the first request, when the database is unreachable.
  const probe = await pool.connect();
  probe.release();
  return {
    ...sqlExecutor(pool),
    kind: 'postgres',
    async transaction(fn) {
      // A deadlock or serialization failure aborts the whole transaction, so running it again is safe.
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const result = await fn(sqlExecutor(client));
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          const code = (error as { code?: unknown }).code;
          if (attempt < 3 && (code === '40P01' || code === '40001')) continue;
          throw error;
        } finally {
          client.release();
        }
      }
    },
    close: () => pool.end(),
  };
}
