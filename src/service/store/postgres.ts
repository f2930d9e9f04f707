// PostgreSQL backend (node-postgres pool), for many instances sharing one database.
import pg from 'pg';
import { UsageError } from '../../errors/index.js';
import { type SqlClient, sqlExecutor } from './sql.js';

/** How long opening a connection may take by default (--database-connect-timeout). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface PostgresOptions {
  /**
   * How long getting a connection may take, a new one (the handshake included) or a free one of the pool: a
   * host whose firewall drops packets, or a port where something other than PostgreSQL listens, otherwise
   * kept start-up waiting for ever.
   */
  connectTimeoutMs?: number | undefined;
  poolSize?: number;
}

// Timestamps come back as Date and counts are cast to int in SQL, so both backends return the same shapes.
export async function openPostgres(
  connectionString: string,
  options: PostgresOptions = {},
): Promise<SqlClient> {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: connectTimeoutMs,
  });
  // Fail at start-up, not on the first request, when the database is unreachable.
  try {
    const probe = await pool.connect();
    probe.release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw unreachableDatabase(connectionString, error, connectTimeoutMs);
  }
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

/** The URL to show: its password (and any password parameter) as ***; never the URL as given. */
export function redactDatabaseUrl(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password !== '') url.password = '***';
    for (const name of [...url.searchParams.keys()]) {
      if (/pass|secret|key/i.test(name)) url.searchParams.set(name, '***');
    }
    return url.toString();
  } catch {
    return 'the --database-url given';
  }
}

const CHECK_URL = 'check --database-url (env TFGATE_DATABASE_URL or DATABASE_URL)';

/**
 * Why the database could not be reached at start-up, in plain words with the URL's password hidden: the
 * operator's to fix (PostgreSQL down, a wrong host, port, database or password), never a bug in tfgate.
 */
export function unreachableDatabase(
  connectionString: string,
  error: unknown,
  connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS,
): UsageError {
  let host = 'its host';
  let port = '5432';
  let database = 'the database';
  let password = '';
  try {
    const url = new URL(connectionString);
    host = url.hostname === '' ? 'the local socket' : url.hostname;
    port = url.port === '' ? '5432' : url.port;
    database = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : database;
    password = url.password;
  } catch {}
  const code = (error as { code?: unknown } | null)?.code;
  // What pg said, with the password hidden should it ever be in it (a short one would only mangle the text).
  const raw = error instanceof Error ? error.message : String(error);
  const said =
    password.length < 4
      ? raw
      : raw.replaceAll(password, '***').replaceAll(decodeURIComponentSafe(password), '***');
  let reason: string;
  let hint: string;
  // pg's connect timeout has no code, only its words: "timeout exceeded when trying to connect" (the pool),
  // "timeout expired" or "Connection terminated due to connection timeout" (the client).
  const timedOut = code === undefined && /timeout/i.test(raw);
  switch (timedOut ? 'timeout' : code) {
    case 'timeout':
      reason = `no answer from ${host}:${port} within ${durationText(connectTimeoutMs)} (connect timeout)`;
      hint =
        `check that PostgreSQL listens at that host and port and that no firewall between this machine and it ` +
        `drops the connection, and ${CHECK_URL}; a slow network may need a longer ` +
        '--database-connect-timeout (env TFGATE_DATABASE_CONNECT_TIMEOUT)';
      break;
    case 'ECONNREFUSED':
      reason = `nothing accepts connections at ${host}:${port} (ECONNREFUSED)`;
      hint = `start PostgreSQL there, or correct the host and port: ${CHECK_URL}`;
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      reason = `the host name ${host} does not resolve (${code})`;
      hint = `correct the host: ${CHECK_URL}`;
      break;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      reason = `${host}:${port} cannot be reached (${code})`;
      hint = `check the network and firewall between this machine and PostgreSQL, and ${CHECK_URL}`;
      break;
    case '28P01':
      reason = `PostgreSQL refused the password (${said})`;
      hint = `give the right password, in the URL (postgres://user:password@host/database) or in PGPASSWORD; ${CHECK_URL}`;
      break;
    case '28000':
      reason = `PostgreSQL refused the connection (${said})`;
      hint = 'check the user name, and that pg_hba.conf lets it connect from this machine to that database';
      break;
    case '3D000':
      reason = `the database "${database}" does not exist`;
      hint = `create it (createdb ${database}), or correct the database name: ${CHECK_URL}`;
      break;
    default:
      if (/client password must be a string/.test(said)) {
        reason = 'PostgreSQL asks for a password and none was given';
        hint = 'give it in the URL (postgres://user:password@host/database) or in PGPASSWORD';
      } else {
        reason = typeof code === 'string' ? `${said} (${code})` : said;
        hint = `${CHECK_URL}, and that PostgreSQL accepts connections from this machine`;
      }
  }
  return new UsageError(
    'database_unreachable',
    `tfgate serve cannot connect to PostgreSQL at ${redactDatabaseUrl(connectionString)}: ${reason}`,
    { hint, cause: error },
  );
}

/** 10000 → "10s", 1500 → "1500ms": a duration as --database-connect-timeout takes it. */
function durationText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
