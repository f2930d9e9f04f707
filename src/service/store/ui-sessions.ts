// Dashboard sessions: a signed-in API key, found by the hash of the session cookie. Read from the database
// on every request (never cached), so a sign-out or a revoked key ends the session on every instance at once.
import type { Principal } from '../types.js';
import { insertAudit } from './audit.js';
import { KEY_COLUMNS, type KeyRow, toKey } from './rows.js';
import type { SqlClient } from './sql.js';

/** Removes expired sessions: at every sign-in and by the periodic sweep (ui-session-sweeper.ts). */
const DELETE_EXPIRED = 'DELETE FROM ui_sessions WHERE expires_at <= now()';

export interface UiSession {
  principal: Principal;
  csrfToken: string;
}

export class UiSessionRepository {
  constructor(private readonly db: SqlClient) {}

  /** Stores a session for the key; expired sessions are removed on the way. Audited as a sign-in. */
  async create(tokenHash: string, principal: Principal, csrfToken: string, ttlMs: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(DELETE_EXPIRED);
      await tx.query(
        `INSERT INTO ui_sessions (token_hash, key_id, csrf_token, expires_at)
         VALUES ($1, $2, $3, now() + ($4::int * interval '1 millisecond'))`,
        [tokenHash, principal.keyId, csrfToken, ttlMs],
      );
      await insertAudit(tx, [
        {
          event: 'dashboard_signed_in',
          account: principal.account,
          keyId: principal.keyId,
          keyName: principal.keyName,
        },
      ]);
    });
  }

  /** The session's key and CSRF token; null when unknown, expired, or its key is revoked. */
  async find(tokenHash: string): Promise<UiSession | null> {
    const { rows } = await this.db.query<KeyRow & { csrf_token: string }>(
      `SELECT s.csrf_token, ${KEY_COLUMNS}
         FROM ui_sessions s JOIN api_keys k ON k.id = s.key_id JOIN accounts a ON a.name = k.account
        WHERE s.token_hash = $1 AND s.expires_at > now() AND k.revoked_at IS NULL`,
      [tokenHash],
    );
    const row = rows[0];
    return row ? { principal: toKey(row).principal, csrfToken: row.csrf_token } : null;
  }

  /** Removes the sessions that have expired (the service sweeps them at start and periodically); how many. */
  async deleteExpired(): Promise<number> {
    const { rows } = await this.db.query(`${DELETE_EXPIRED} RETURNING token_hash`);
    return rows.length;
  }

  /**
   * A client address's failed sign-ins began a lockout: audited once per lockout, not per attempt. No account:
   * the keys tried were not valid ones, so the row names only the address.
   */
  async auditSignInLockout(clientAddress: string, retryAfterSeconds: number): Promise<void> {
    await insertAudit(this.db, [
      {
        event: 'dashboard_sign_in_locked_out',
        account: '',
        details: { client_address: clientAddress, retry_after_s: retryAfterSeconds },
      },
    ]);
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db.query('DELETE FROM ui_sessions WHERE token_hash = $1', [tokenHash]);
  }
}
