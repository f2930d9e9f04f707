// Drift checks: one run's results reconciled into the package's findings, and the record of the run.
import type { DetectedDrift, FindingStatus, JudgedState } from '../../model/index.js';
import { insertAudit } from './audit.js';
import { type StoreCaches, writeState } from './caches.js';
import { iso, type PackageRecord } from './rows.js';
import type { SqlClient } from './sql.js';

export type DriftTrigger = 'scheduled' | 'refresh' | 'manual' | 'gate';

export interface DriftCheckOutcome {
  checkedAt: string;
  opened: number;
  reopened: number;
  resolved: number;
  detected: number;
}

export class DriftCheckRepository {
  constructor(
    private readonly db: SqlClient,
    private readonly caches: StoreCaches,
  ) {}

  /**
   * Records a drift check's results: new findings open, findings no longer observed resolve, resolved
   * findings that come back reopen (their acknowledgement is gone). `beforeCommit` may throw to abort
   * (the time limit), so a late check leaves nothing behind.
   */
  record(
    pkg: PackageRecord,
    detected: DetectedDrift[],
    check: {
      revision: string;
      trigger: DriftTrigger;
      instance: string;
      startedAt: Date;
      /** Which state was judged: recorded with the run and on the package, for the gate's answer. */
      state: JudgedState;
    },
    beforeCommit: () => void = () => undefined,
  ): Promise<DriftCheckOutcome> {
    return writeState(this.db, this.caches, async (tx) => {
      // Serialises concurrent checks of one package (two instances, or a refresh racing the scheduler).
      // NO KEY UPDATE, not UPDATE: rows that reference the package (acknowledgements, audit) take a KEY
      // SHARE lock through their foreign key, and must not wait on a check that waits on their finding.
      await tx.query('SELECT pk FROM packages WHERE pk = $1 FOR NO KEY UPDATE', [pkg.pk]);
      const { rows: nowRows } = await tx.query<{ now: unknown }>('SELECT now() AS now');
      const now = iso(nowRows[0]!.now);
      const { rows: existingRows } = await tx.query<{ id: string; status: FindingStatus }>(
        'SELECT id, status FROM findings WHERE package_pk = $1',
        [pkg.pk],
      );
      const existing = new Map(existingRows.map((r) => [r.id, r.status]));
      const seen = new Set<string>();
      let opened = 0;
      let reopened = 0;
      for (const d of detected) {
        if (seen.has(d.id)) continue;
        seen.add(d.id);
        const status = existing.get(d.id);
        const values = [
          pkg.pk,
          d.id,
          d.rule,
          d.severity,
          d.address,
          d.type ?? null,
          d.kind ?? null,
          d.capability ?? null,
          d.message,
          now,
        ];
        if (status === undefined) {
          opened++;
          await tx.query(
            `INSERT INTO findings (package_pk, id, rule, severity, address, type, kind, capability, message, status, first_seen_at, last_seen_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'open', $10, $10)`,
            values,
          );
        } else if (status === 'resolved') {
          reopened++;
          await tx.query(
            `UPDATE findings SET rule = $3, severity = $4, address = $5, type = $6, kind = $7, capability = $8, message = $9,
               status = 'open', last_seen_at = $10, resolved_at = NULL, ack_by = NULL, ack_account = NULL, ack_at = NULL, ack_reason = NULL, ack_expires_at = NULL
             WHERE package_pk = $1 AND id = $2`,
            values,
          );
        } else {
          await tx.query(
            `UPDATE findings SET rule = $3, severity = $4, address = $5, type = $6, kind = $7, capability = $8, message = $9, last_seen_at = $10
             WHERE package_pk = $1 AND id = $2`,
            values,
          );
        }
      }
      let resolved = 0;
      for (const [id, status] of existing) {
        if (status === 'resolved' || seen.has(id)) continue;
        resolved++;
        await tx.query(
          "UPDATE findings SET status = 'resolved', resolved_at = $3 WHERE package_pk = $1 AND id = $2",
          [pkg.pk, id, now],
        );
      }
      await tx.query(
        'INSERT INTO drift_checks (package_pk, revision, trigger, instance, started_at, finished_at, detected, state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)',
        [
          pkg.pk,
          check.revision,
          check.trigger,
          check.instance,
          check.startedAt.toISOString(),
          now,
          seen.size,
          JSON.stringify(check.state),
        ],
      );
      await tx.query(
        'UPDATE packages SET last_check_at = $2, last_check_revision = $3, last_check_state = $4::jsonb WHERE pk = $1',
        [pkg.pk, now, check.revision, JSON.stringify(check.state)],
      );
      if (opened + reopened + resolved > 0) {
        await insertAudit(tx, [
          {
            event: 'drift_checked',
            account: pkg.account,
            packagePk: pkg.pk,
            packageId: pkg.packageId,
            details: {
              trigger: check.trigger,
              detected: seen.size,
              opened,
              reopened,
              resolved,
              state: check.state,
            },
          },
        ]);
      }
      beforeCommit();
      return { checkedAt: now, opened, reopened, resolved, detected: seen.size };
    });
  }
}
