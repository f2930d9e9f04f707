// Plan acknowledgements: a platform team waives one plan finding (one rule on one address of one package),
// with a reason and an optional expiry. At most one holds per finding; a new one replaces it. Every write
// is audited with the key's name and account; revoked ones stay in the table for the record.
import type { PlanAcknowledgement, PlanRule } from '../../model/index.js';
import type { Principal } from '../types.js';
import { expiryEntry, insertAudit, packageEntry } from './audit.js';
import { NotFoundError } from './errors.js';
import { iso, type PackageRecord } from './rows.js';
import type { SqlClient, SqlExecutor } from './sql.js';

const COLUMNS = 'finding_id, rule, address, reason, expires_at, account, key_name, at';

type Row = {
  finding_id: string;
  rule: PlanRule;
  address: string;
  reason: string;
  expires_at: unknown;
  account: string;
  key_name: string;
  at: unknown;
};

function toRecord(row: Row): PlanAcknowledgement {
  const record: PlanAcknowledgement = {
    finding_id: row.finding_id,
    rule: row.rule,
    address: row.address,
    reason: row.reason,
    by: row.key_name,
    account: row.account,
    at: iso(row.at),
  };
  if (row.expires_at != null) record.expires_at = iso(row.expires_at);
  return record;
}

/** The finding and waiver an audit entry about an acknowledgement names. */
function auditedFields(record: PlanAcknowledgement): Record<string, unknown> {
  const { finding_id, rule, address, reason, expires_at } = record;
  return { finding_id, rule, address, reason, ...(expires_at === undefined ? {} : { expires_at }) };
}

/** Revokes the acknowledgement that holds for a finding, if any; answers it (none or one row). */
function revokeHolding(tx: SqlExecutor, principal: Principal, pkg: PackageRecord, findingId: string) {
  return tx.query<Row>(
    `UPDATE plan_acknowledgements SET revoked_at = now(), revoked_by = $3, revoked_account = $4
      WHERE package_pk = $1 AND finding_id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
    [pkg.pk, findingId, principal.keyName, principal.account],
  );
}

export interface NewPlanAcknowledgement {
  findingId: string;
  rule: PlanRule;
  address: string;
  reason: string;
  expiresAt: string | null;
}

export class PlanAcknowledgementRepository {
  constructor(private readonly db: SqlClient) {}

  /** Every acknowledgement not revoked, expired ones included (the policy says which have expired), by finding id. */
  async list(pkg: PackageRecord): Promise<PlanAcknowledgement[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM plan_acknowledgements WHERE package_pk = $1 AND revoked_at IS NULL ORDER BY finding_id`,
      [pkg.pk],
    );
    return rows.map(toRecord);
  }

  /** Records an acknowledgement, replacing (revoking) the one that held for the same finding, if any. */
  create(
    principal: Principal,
    pkg: PackageRecord,
    ack: NewPlanAcknowledgement,
  ): Promise<PlanAcknowledgement> {
    return this.db.transaction(async (tx) => {
      // Serialises writes to one package's acknowledgements (two instances acknowledging the same finding).
      await tx.query('SELECT pk FROM packages WHERE pk = $1 FOR NO KEY UPDATE', [pkg.pk]);
      const { rows: replaced } = await revokeHolding(tx, principal, pkg, ack.findingId);
      const { rows } = await tx.query<Row>(
        `INSERT INTO plan_acknowledgements (package_pk, finding_id, rule, address, reason, expires_at, account, key_id, key_name)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
        [
          pkg.pk,
          ack.findingId,
          ack.rule,
          ack.address,
          ack.reason,
          ack.expiresAt,
          principal.account,
          principal.keyId,
          principal.keyName,
        ],
      );
      const record = toRecord(rows[0]!);
      await insertAudit(tx, [
        packageEntry(principal, pkg, 'plan_finding_acknowledged', {
          ...auditedFields(record),
          ...(replaced[0] ? { replaces: toRecord(replaced[0]) } : {}),
        }),
      ]);
      return record;
    });
  }

  /** Revokes the acknowledgement that holds for a finding; NotFoundError when none does. */
  revoke(principal: Principal, pkg: PackageRecord, findingId: string): Promise<PlanAcknowledgement> {
    return this.db.transaction(async (tx) => {
      const { rows } = await revokeHolding(tx, principal, pkg, findingId);
      if (!rows[0]) {
        throw new NotFoundError(
          { code: 'plan_acknowledgement_not_found', packageId: pkg.packageId, findingId },
          `package "${pkg.packageId}" has no plan acknowledgement of finding "${findingId}"`,
        );
      }
      const record = toRecord(rows[0]);
      await insertAudit(tx, [
        packageEntry(principal, pkg, 'plan_acknowledgement_revoked', {
          ...auditedFields(record),
          acknowledged_by: record.by,
          acknowledged_account: record.account,
        }),
      ]);
      return record;
    });
  }

  /**
   * Audits `acknowledgement_expired` for the acknowledgements among `findingIds` a decision found expired,
   * the first time one is seen (expiry_audited_at marks it, so instances never audit one expiry twice).
   */
  async auditExpired(pkg: PackageRecord, findingIds: string[], now: string): Promise<void> {
    if (findingIds.length === 0) return;
    await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<Row>(
        `UPDATE plan_acknowledgements SET expiry_audited_at = $3
          WHERE package_pk = $1 AND finding_id = ANY($2::text[]) AND revoked_at IS NULL
            AND expiry_audited_at IS NULL AND expires_at <= $3
          RETURNING ${COLUMNS}`,
        [pkg.pk, findingIds, now],
      );
      if (rows.length === 0) return;
      await insertAudit(
        tx,
        rows.map(toRecord).map((ack) =>
          expiryEntry(pkg, ack.by, {
            finding_id: ack.finding_id,
            rule: ack.rule,
            address: ack.address,
            reason: ack.reason,
            acknowledged_by: ack.by,
            acknowledged_account: ack.account,
            acknowledged_at: ack.at,
            expires_at: ack.expires_at,
            observed_at: now,
            kind: 'plan',
          }),
        ),
      );
    });
  }
}
