// Drift findings and their acknowledgements. The drift check writes findings (drift-checks.ts).
import type { DriftFinding, FindingStatus } from '../../model/index.js';
import type { Principal } from '../types.js';
import { expiryEntry, insertAudit, packageEntry } from './audit.js';
import { type StoreCaches, writeState } from './caches.js';
import { ConflictError, NotFoundError } from './errors.js';
import { FINDING_COLUMNS, type FindingRow, iso, type PackageRecord, toFinding } from './rows.js';
import type { SqlClient, SqlExecutor } from './sql.js';

export class FindingRepository {
  constructor(
    private readonly db: SqlClient,
    private readonly caches: StoreCaches,
  ) {}

  async list(pkg: PackageRecord, status?: FindingStatus): Promise<DriftFinding[]> {
    const byStatus = status === undefined ? '' : ' AND status = $2';
    const { rows } = await this.db.query<FindingRow>(
      `SELECT ${FINDING_COLUMNS} FROM findings WHERE package_pk = $1${byStatus} ORDER BY id`,
      status === undefined ? [pkg.pk] : [pkg.pk, status],
    );
    return rows.map(toFinding);
  }

  /** The gate's one findings query: everything not resolved. */
  async unresolved(pkg: PackageRecord): Promise<DriftFinding[]> {
    return this.caches.unresolvedFindings.read(pkg.pk, async () => {
      const { rows } = await this.db.query<FindingRow>(
        `SELECT ${FINDING_COLUMNS} FROM findings WHERE package_pk = $1 AND status <> 'resolved' ORDER BY id`,
        [pkg.pk],
      );
      return rows.map(toFinding);
    });
  }

  /**
   * Acknowledges an open finding with a reason, recorded in acknowledgements and the audit log. Throws
   * NotFoundError `finding_not_found`, or ConflictError `finding_resolved` (nothing to acknowledge).
   */
  acknowledge(
    principal: Principal,
    pkg: PackageRecord,
    findingId: string,
    reason: string,
    expiresAt: string | null = null,
  ): Promise<DriftFinding> {
    return writeState(this.db, this.caches, async (tx) => {
      const finding = await lockedFinding(tx, pkg, findingId);
      if (finding.status === 'resolved') {
        throw new ConflictError(
          { code: 'finding_resolved', findingId },
          `finding "${findingId}" is resolved (no longer observed)`,
        );
      }
      const { rows: ackRows } = await tx.query<{ at: unknown }>(
        `INSERT INTO acknowledgements (package_pk, finding_id, account, key_id, key_name, reason, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING at`,
        [pkg.pk, findingId, principal.account, principal.keyId, principal.keyName, reason, expiresAt],
      );
      const at = ackRows[0]!.at;
      const { rows: updated } = await tx.query<FindingRow>(
        `UPDATE findings SET status = 'acknowledged', ack_by = $3, ack_account = $4, ack_at = $5, ack_reason = $6,
           ack_expires_at = $7
          WHERE package_pk = $1 AND id = $2 RETURNING ${FINDING_COLUMNS}`,
        [pkg.pk, findingId, principal.keyName, principal.account, iso(at), reason, expiresAt],
      );
      await insertAudit(tx, [
        packageEntry(principal, pkg, 'finding_acknowledged', {
          finding_id: findingId,
          rule: finding.rule,
          severity: finding.severity,
          address: finding.address,
          reason,
          ...(expiresAt === null ? {} : { expires_at: expiresAt }),
        }),
      ]);
      return toFinding(updated[0]!);
    });
  }

  /**
   * Revokes the acknowledgement of an acknowledged finding: it is open again at once (it blocks at the next
   * gate when at or above the threshold), audited with the acknowledgement it ends. Throws NotFoundError
   * `finding_not_found`, or ConflictError `finding_not_acknowledged`.
   */
  revokeAcknowledgement(principal: Principal, pkg: PackageRecord, findingId: string): Promise<DriftFinding> {
    return writeState(this.db, this.caches, async (tx) => {
      const finding = await lockedFinding(tx, pkg, findingId);
      if (finding.status !== 'acknowledged') {
        throw new ConflictError(
          { code: 'finding_not_acknowledged', findingId },
          `finding "${findingId}" is ${finding.status}, not acknowledged`,
        );
      }
      const { rows: updated } = await tx.query<FindingRow>(
        `UPDATE findings SET status = 'open', ack_by = NULL, ack_account = NULL, ack_at = NULL, ack_reason = NULL,
           ack_expires_at = NULL
          WHERE package_pk = $1 AND id = $2 RETURNING ${FINDING_COLUMNS}`,
        [pkg.pk, findingId],
      );
      await insertAudit(tx, [
        packageEntry(principal, pkg, 'finding_acknowledgement_revoked', endedAcknowledgement(finding)),
      ]);
      return toFinding(updated[0]!);
    });
  }

  /**
   * Opens again the acknowledged findings among `findingIds` whose acknowledgement had expired at `now`, and
   * writes one `acknowledgement_expired` audit row for each, naming who acknowledged it (key and account).
   * The expired acknowledgement stays on the finding. Only the first caller to see an expiry changes the row,
   * so two instances never audit one expiry twice. Returns the ids it opened.
   */
  expire(pkg: PackageRecord, findingIds: string[], now: string): Promise<string[]> {
    if (findingIds.length === 0) return Promise.resolve([]);
    return writeState(this.db, this.caches, async (tx) => {
      const { rows } = await tx.query<FindingRow>(
        `UPDATE findings SET status = 'open'
          WHERE package_pk = $1 AND id = ANY($2::text[]) AND status = 'acknowledged' AND ack_expires_at <= $3
          RETURNING ${FINDING_COLUMNS}`,
        [pkg.pk, findingIds, now],
      );
      if (rows.length > 0) {
        await insertAudit(
          tx,
          rows.map((row) =>
            expiryEntry(pkg, row.ack_by, { ...endedAcknowledgement(row), observed_at: now, kind: 'drift' }),
          ),
        );
      }
      return rows.map((row) => row.id);
    });
  }
}

/** The finding, locked for the rest of the transaction; NotFoundError `finding_not_found` when there is none. */
async function lockedFinding(tx: SqlExecutor, pkg: PackageRecord, findingId: string): Promise<FindingRow> {
  const { rows } = await tx.query<FindingRow>(
    `SELECT ${FINDING_COLUMNS} FROM findings WHERE package_pk = $1 AND id = $2 FOR NO KEY UPDATE`,
    [pkg.pk, findingId],
  );
  const finding = rows[0];
  if (!finding) {
    throw new NotFoundError(
      { code: 'finding_not_found', packageId: pkg.packageId, findingId },
      `finding "${findingId}" was not found in package "${pkg.packageId}"`,
    );
  }
  return finding;
}

/** An acknowledgement that ended (revoked, expired), as its audit row records it: the finding and who said why. */
function endedAcknowledgement(row: FindingRow): Record<string, unknown> {
  return {
    finding_id: row.id,
    rule: row.rule,
    severity: row.severity,
    address: row.address,
    reason: row.ack_reason,
    acknowledged_by: row.ack_by,
    acknowledged_account: row.ack_account,
    acknowledged_at: iso(row.ack_at),
    ...(row.ack_expires_at === null ? {} : { expires_at: iso(row.ack_expires_at) }),
  };
}
