// The audit log: rows written inside other writes' transactions, the gate's and the evaluation's rows by
// group commit, and the paged read. Append-only (a trigger refuses UPDATE and DELETE).
import type { Principal } from '../types.js';
import { iso, type PackageRecord } from './rows.js';
import type { SqlClient, SqlExecutor } from './sql.js';

export interface AuditEntry {
  event: string;
  account: string;
  packagePk?: number | null;
  packageId?: string | null;
  keyId?: string | null;
  keyName?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditRecord {
  id: string;
  at: string;
  event: string;
  account: string;
  package_id: string | null;
  key_id: string | null;
  key_name: string | null;
  details: Record<string, unknown>;
}

/** An audit entry for something a key did. */
export function actorEntry(actor: Principal, event: string, details: Record<string, unknown>): AuditEntry {
  return { event, account: actor.account, keyId: actor.keyId, keyName: actor.keyName, details };
}

/** An audit entry for something a key did to a package. */
export function packageEntry(
  actor: Principal,
  pkg: Pick<PackageRecord, 'pk' | 'packageId'>,
  event: string,
  details: Record<string, unknown>,
): AuditEntry {
  return { ...actorEntry(actor, event, details), packagePk: pkg.pk, packageId: pkg.packageId };
}

/**
 * `acknowledgement_expired`, seen at a decision (drift or plan): no key acted, so the row names the key that
 * made the acknowledgement.
 */
export function expiryEntry(
  pkg: Pick<PackageRecord, 'pk' | 'packageId' | 'account'>,
  acknowledgedBy: string | null,
  details: Record<string, unknown>,
): AuditEntry {
  return {
    event: 'acknowledgement_expired',
    account: pkg.account,
    packagePk: pkg.pk,
    packageId: pkg.packageId,
    keyName: acknowledgedBy,
    details,
  };
}

/** Inserts audit rows in one statement, inside the caller's transaction (or on their own). */
export async function insertAudit(db: SqlExecutor, entries: AuditEntry[]): Promise<void> {
  const params: unknown[] = [];
  const rows = entries.map((entry) => {
    const at = params.length;
    params.push(
      entry.account,
      entry.packagePk ?? null,
      entry.packageId ?? null,
      entry.event,
      entry.keyId ?? null,
      entry.keyName ?? null,
      JSON.stringify(entry.details ?? {}),
    );
    return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, $${at + 7}::jsonb)`;
  });
  await db.query(
    `INSERT INTO audit (account, package_pk, package_id, event, key_id, key_name, details) VALUES ${rows.join(', ')}`,
    params,
  );
}

interface QueuedEntry {
  entry: AuditEntry;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class AuditLog {
  readonly #queue: QueuedEntry[] = [];
  /** The pending or running flush of the queue, if any. */
  #flush: Promise<void> | undefined;

  constructor(private readonly db: SqlClient) {}

  /**
   * The gate's and the evaluation's audit row, committed before the answer (group commit). Rows queue
   * until the end of the event-loop turn (`setImmediate`), so every request that arrived in that turn
   * shares one multi-row INSERT and one commit; alone, a call waits for no timer, only for its commit.
   */
  append(entry: AuditEntry): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ entry, resolve, reject });
      // Not answer-first-write-later: an answered gate decision is always in the audit log, even after kill -9.
      // SQLite runs each statement synchronously, so flushing at once would commit one row per request.
      this.#flush ??= new Promise<void>((done) => setImmediate(done)).then(() => this.#flushQueue());
    });
  }

  /** Waits for the rows still queued: they belong to requests that are waiting for them. */
  async drain(): Promise<void> {
    await this.#flush;
  }

  async #flushQueue(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, 500);
        try {
          await insertAudit(
            this.db,
            batch.map((b) => b.entry),
          );
          for (const b of batch) b.resolve();
        } catch (error) {
          if (batch.length === 1) {
            batch[0]!.reject(error);
            continue;
          }
          // One bad row must not fail the calls it shared a commit with: insert each on its own.
          for (const b of batch) await insertAudit(this.db, [b.entry]).then(b.resolve, b.reject);
        }
      }
    } finally {
      this.#flush = undefined;
    }
  }

  /** Oldest first, after the id `after`; with `events`, only entries of those events (the dashboard's filter). */
  async list(
    pkg: PackageRecord,
    options: { after?: string; limit: number; events?: readonly string[] },
  ): Promise<AuditRecord[]> {
    const byEvent = options.events === undefined ? '' : ' AND event = ANY($4::text[])';
    const params: unknown[] = [pkg.pk, options.after ?? '0', options.limit];
    if (options.events !== undefined) params.push(options.events);
    const { rows } = await this.db.query<Omit<AuditRecord, 'at'> & { at: unknown }>(
      // ORDER BY audit.id, the bigint column: a bare "id" would name the text alias, and paging by
      // next_after over a text order ("10" < "9") skipped rows.
      `SELECT id::text AS id, at, event, account, package_id, key_id, key_name, details FROM audit
        WHERE package_pk = $1 AND audit.id > $2::bigint${byEvent} ORDER BY audit.id LIMIT $3`,
      params,
    );
    return rows.map((r) => ({ ...r, at: iso(r.at) }));
  }
}
