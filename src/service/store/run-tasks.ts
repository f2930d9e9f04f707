// Run tasks (HCP Terraform / Terraform Enterprise): each package's run task configuration (its HMAC key,
// sealed), and every task received, claimed in the database so that a restart or another instance finishes
// what an instance that stopped left (the same claim as scheduled drift checks: FOR UPDATE SKIP LOCKED).
import type { Principal } from '../types.js';
import { type AuditEntry, insertAudit, packageEntry } from './audit.js';
import { iso, PACKAGE_COLUMNS, type PackageRecord, type PackageRow, toPackage } from './rows.js';
import type { SqlClient } from './sql.js';

export interface RunTaskConfigRecord {
  packagePk: number;
  /** The HMAC key, sealed (core/run-task-seal.ts); opened only to check a signature. */
  hmacKeySealed: string;
  minSeverity: string;
  createdAt: string;
  updatedAt: string;
}

export interface NewRunTask {
  taskResultId: string;
  packagePk: number;
  /** The request payload (it holds HCP Terraform's access token), sealed. */
  payloadSealed: string;
  stage: string;
  runId: string;
  workspaceName: string;
  organizationName: string;
}

export interface RunTaskRecord extends NewRunTask {
  attempts: number;
  receivedAt: string;
}

type ConfigRow = {
  package_pk: number;
  hmac_key_sealed: string;
  min_severity: string;
  created_at: unknown;
  updated_at: unknown;
};

type TaskRow = {
  task_result_id: string;
  package_pk: number;
  payload_sealed: string;
  stage: string;
  run_id: string;
  workspace_name: string;
  organization_name: string;
  attempts: number;
  received_at: unknown;
};

const toConfig = (row: ConfigRow): RunTaskConfigRecord => ({
  packagePk: row.package_pk,
  hmacKeySealed: row.hmac_key_sealed,
  minSeverity: row.min_severity,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const toTask = (row: TaskRow): RunTaskRecord => ({
  taskResultId: row.task_result_id,
  packagePk: row.package_pk,
  payloadSealed: row.payload_sealed,
  stage: row.stage,
  runId: row.run_id,
  workspaceName: row.workspace_name,
  organizationName: row.organization_name,
  attempts: row.attempts,
  receivedAt: iso(row.received_at),
});

const TASK_COLUMNS =
  't.task_result_id, t.package_pk, t.payload_sealed, t.stage, t.run_id, t.workspace_name, t.organization_name, t.attempts, t.received_at';

export class RunTaskRepository {
  constructor(private readonly db: SqlClient) {}

  async getConfig(pkg: Pick<PackageRecord, 'pk'>): Promise<RunTaskConfigRecord | null> {
    const { rows } = await this.db.query<ConfigRow>('SELECT * FROM run_task_configs WHERE package_pk = $1', [
      pkg.pk,
    ]);
    return rows[0] ? toConfig(rows[0]) : null;
  }

  /** Stores (or replaces) the configuration; audited in the same transaction, never with the key. */
  putConfig(
    principal: Principal,
    pkg: PackageRecord,
    hmacKeySealed: string,
    minSeverity: string,
  ): Promise<{ config: RunTaskConfigRecord; created: boolean }> {
    return this.db.transaction(async (tx) => {
      // The package row's lock serialises two configurations of one package, so `created` is exact (one
      // query layer for both stores: PostgreSQL's xmax trick has no SQLite equivalent).
      await tx.query('SELECT pk FROM packages WHERE pk = $1 FOR NO KEY UPDATE', [pkg.pk]);
      const existing = await tx.query('SELECT package_pk FROM run_task_configs WHERE package_pk = $1', [
        pkg.pk,
      ]);
      const created = existing.rows.length === 0;
      const { rows } = await tx.query<ConfigRow>(
        `INSERT INTO run_task_configs (package_pk, hmac_key_sealed, min_severity) VALUES ($1, $2, $3)
          ON CONFLICT (package_pk) DO UPDATE SET hmac_key_sealed = $2, min_severity = $3, updated_at = now()
          RETURNING *`,
        [pkg.pk, hmacKeySealed, minSeverity],
      );
      await insertAudit(tx, [
        packageEntry(principal, pkg, 'run_task_configured', {
          min_severity: minSeverity,
          key_replaced: !created,
        }),
      ]);
      return { config: toConfig(rows[0]!), created };
    });
  }

  /** Every configuration of a package id, across accounts: the run task URL names no account. */
  async configsForPackageId(
    packageId: string,
  ): Promise<Array<{ pkg: PackageRecord; config: RunTaskConfigRecord }>> {
    const { rows } = await this.db.query<PackageRow & { c_package_pk: number } & Record<string, unknown>>(
      `SELECT ${PACKAGE_COLUMNS}, c.package_pk AS c_package_pk, c.hmac_key_sealed, c.min_severity,
              c.created_at AS c_created_at, c.updated_at AS c_updated_at
         FROM run_task_configs c JOIN packages p ON p.pk = c.package_pk WHERE p.package_id = $1 ORDER BY p.pk`,
      [packageId],
    );
    return rows.map((row) => ({
      pkg: toPackage(row),
      config: toConfig({
        package_pk: row.c_package_pk,
        hmac_key_sealed: row.hmac_key_sealed as string,
        min_severity: row.min_severity as string,
        created_at: row.c_created_at,
        updated_at: row.c_updated_at,
      }),
    }));
  }

  async packageByPk(pk: number): Promise<PackageRecord | null> {
    const { rows } = await this.db.query<PackageRow>(
      `SELECT ${PACKAGE_COLUMNS} FROM packages p WHERE p.pk = $1`,
      [pk],
    );
    return rows[0] ? toPackage(rows[0]) : null;
  }

  /**
   * Records a task, claimed by `instance` until the lease ends. A task_result_id seen before (HCP Terraform
   * retrying its POST) is not recorded again: `created` is false and the caller does nothing more.
   */
  async receive(task: NewRunTask, instance: string, leaseMs: number): Promise<{ created: boolean }> {
    const { rows } = await this.db.query<{ task_result_id: string }>(
      `INSERT INTO run_tasks (task_result_id, package_pk, payload_sealed, stage, run_id, workspace_name,
          organization_name, status, attempts, claimed_by, lease_until)
        VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 1, $8, now() + ($9::int * interval '1 millisecond'))
        ON CONFLICT (task_result_id) DO NOTHING RETURNING task_result_id`,
      [
        task.taskResultId,
        task.packagePk,
        task.payloadSealed,
        task.stage,
        task.runId,
        task.workspaceName,
        task.organizationName,
        instance,
        leaseMs,
      ],
    );
    return { created: rows.length === 1 };
  }

  /**
   * Claims pending tasks whose lease ran out (their instance stopped, or gave up for now), in one statement
   * across every instance sharing the database: each task is worked on by one instance at a time.
   */
  async claimStale(instance: string, leaseMs: number, limit: number): Promise<RunTaskRecord[]> {
    const { rows } = await this.db.query<TaskRow>(
      `UPDATE run_tasks t SET claimed_by = $1, lease_until = now() + ($2::int * interval '1 millisecond'),
              attempts = t.attempts + 1
        WHERE t.task_result_id IN (
          SELECT q.task_result_id FROM run_tasks q
           WHERE q.status = 'pending' AND q.lease_until <= now()
           ORDER BY q.lease_until LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING ${TASK_COLUMNS}`,
      [instance, leaseMs, limit],
    );
    return rows.map(toTask);
  }

  /** Extends this instance's lease while it works; false when another instance took the task over. */
  async renewLease(taskResultId: string, instance: string, leaseMs: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE run_tasks SET lease_until = now() + ($3::int * interval '1 millisecond')
        WHERE task_result_id = $1 AND claimed_by = $2 AND status = 'pending' RETURNING task_result_id`,
      [taskResultId, instance, leaseMs],
    );
    return rows.length === 1;
  }

  /** Gives the task back until `retryInMs` from now (its callback could not be delivered yet). */
  async release(taskResultId: string, instance: string, retryInMs: number): Promise<void> {
    await this.db.query(
      `UPDATE run_tasks SET lease_until = now() + ($3::int * interval '1 millisecond')
        WHERE task_result_id = $1 AND claimed_by = $2 AND status = 'pending'`,
      [taskResultId, instance, retryInMs],
    );
  }

  /**
   * The task's end: `done` once HCP Terraform took the result, `abandoned` when it cannot be (the callback
   * refused, or the hour HCP Terraform waits is over). Audited in the same transaction. False when another
   * instance finished it first (nothing written).
   */
  finish(
    task: RunTaskRecord,
    instance: string,
    outcome: { status: 'done' | 'abandoned'; resultStatus: string | null },
    audit: AuditEntry,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query(
        `UPDATE run_tasks SET status = $3, result_status = $4, finished_at = now(), lease_until = NULL
          WHERE task_result_id = $1 AND claimed_by = $2 AND status = 'pending' RETURNING task_result_id`,
        [task.taskResultId, instance, outcome.status, outcome.resultStatus],
      );
      if (rows.length === 0) return false;
      await insertAudit(tx, [audit]);
      return true;
    });
  }

  /** For tests and operators: a task's state. */
  async status(taskResultId: string): Promise<{
    status: string;
    resultStatus: string | null;
    attempts: number;
    claimedBy: string | null;
  } | null> {
    const { rows } = await this.db.query<{
      status: string;
      result_status: string | null;
      attempts: number;
      claimed_by: string | null;
    }>('SELECT status, result_status, attempts, claimed_by FROM run_tasks WHERE task_result_id = $1', [
      taskResultId,
    ]);
    const row = rows[0];
    return row
      ? {
          status: row.status,
          resultStatus: row.result_status,
          attempts: row.attempts,
          claimedBy: row.claimed_by,
        }
      : null;
  }
}
