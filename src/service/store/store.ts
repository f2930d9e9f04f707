// Every read and write the service makes, as SQL over the SqlClient seam. Writes run in transactions.
import type { Design } from '../../design/index.js';
import type {
  DetectedDrift,
  DriftFinding,
  DriftRule,
  FindingStatus,
  ObservedResource,
  Severity,
} from '../../model/index.js';
import { ServiceError } from '../core/errors.js';
import type { AccountPlan, Principal, Scope } from '../core/types.js';
import { migrate } from './migrations.js';
import type { SqlClient, SqlExecutor } from './sql.js';

export interface PackageRecord {
  pk: number;
  account: string;
  packageId: string;
  design: Design;
  revision: string;
  approvedRevision: string | null;
  approvedAt: string | null;
  approved: boolean;
  lastCheckAt: string | null;
  lastCheckRevision: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface KeyLookup {
  principal: Principal;
  revoked: boolean;
  /** The stored hash, compared again in constant time by the caller. */
  hash: string;
  /** The package the request names, when it names one and it belongs to the key's account. */
  pkg: PackageRecord | null;
}

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

export interface DriftCheckOutcome {
  checkedAt: string;
  opened: number;
  reopened: number;
  resolved: number;
  detected: number;
}

const iso = (value: unknown): string => new Date(value as string | Date).toISOString();
const isoOrNull = (value: unknown): string | null => (value == null ? null : iso(value));

const PACKAGE_COLUMNS =
  'p.pk, p.account, p.package_id, p.design, p.revision, p.approved_revision, p.approved_at, p.last_check_at, p.last_check_revision, p.created_at, p.updated_at';

type PackageRow = {
  pk: number;
  account: string;
  package_id: string;
  design: Design;
  revision: string;
  approved_revision: string | null;
  approved_at: unknown;
  last_check_at: unknown;
  last_check_revision: string | null;
  created_at: unknown;
  updated_at: unknown;
};

function toPackage(row: PackageRow): PackageRecord {
  return {
    pk: row.pk,
    account: row.account,
    packageId: row.package_id,
    design: row.design,
    revision: row.revision,
    approvedRevision: row.approved_revision,
    approvedAt: isoOrNull(row.approved_at),
    approved: row.approved_revision !== null && row.approved_revision === row.revision,
    lastCheckAt: isoOrNull(row.last_check_at),
    lastCheckRevision: row.last_check_revision,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

const KEY_COLUMNS =
  'k.id AS key_id, k.name AS key_name, k.key_hash, k.scopes, k.revoked_at, a.name AS account_name, a.plan';

type KeyRow = {
  key_id: string;
  key_name: string;
  key_hash: string;
  scopes: Scope[];
  revoked_at: unknown;
  account_name: string;
  plan: AccountPlan;
};

function toKey(row: KeyRow): Omit<KeyLookup, 'pkg'> {
  return {
    principal: {
      keyId: row.key_id,
      keyName: row.key_name,
      account: row.account_name,
      plan: row.plan,
      scopes: row.scopes,
    },
    revoked: row.revoked_at != null,
    hash: row.key_hash,
  };
}

type FindingRow = {
  id: string;
  rule: DriftRule;
  severity: Severity;
  address: string;
  type: string | null;
  kind: string | null;
  capability: string | null;
  message: string;
  status: FindingStatus;
  first_seen_at: unknown;
  last_seen_at: unknown;
  resolved_at: unknown;
  ack_by: string | null;
  ack_account: string | null;
  ack_at: unknown;
  ack_reason: string | null;
};

function toFinding(row: FindingRow): DriftFinding {
  const finding: DriftFinding = {
    id: row.id,
    rule: row.rule,
    severity: row.severity,
    address: row.address,
    message: row.message,
    status: row.status,
    first_seen_at: iso(row.first_seen_at),
    last_seen_at: iso(row.last_seen_at),
  };
  if (row.type !== null) finding.type = row.type;
  if (row.kind !== null) finding.kind = row.kind;
  if (row.capability !== null) finding.capability = row.capability;
  if (row.resolved_at != null) finding.resolved_at = iso(row.resolved_at);
  if (row.status === 'acknowledged' && row.ack_by !== null) {
    finding.acknowledgement = {
      by: row.ack_by,
      account: row.ack_account ?? '',
      at: iso(row.ack_at),
      reason: row.ack_reason ?? '',
    };
  }
  return finding;
}

const FINDING_COLUMNS =
  'id, rule, severity, address, type, kind, capability, message, status, first_seen_at, last_seen_at, resolved_at, ack_by, ack_account, ack_at, ack_reason';

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

export class Store {
  readonly #keyCache: Map<string, Omit<KeyLookup, 'pkg'> | null> | undefined;
  #keyGeneration = 0;
  /** Embedded only, like the key cache: packages by account and id, unresolved findings by package. */
  readonly #packageCache: Map<string, PackageRecord | null> | undefined;
  readonly #findingsCache: Map<number, DriftFinding[]> | undefined;
  #stateGeneration = 0;
  readonly #auditQueue: Array<{ entry: AuditEntry; resolve: () => void; reject: (error: unknown) => void }> =
    [];
  /** The pending or running flush of the audit queue, if any. */
  #auditFlush: Promise<void> | undefined;

  constructor(readonly db: SqlClient) {
    const embedded = db.kind === 'embedded';
    this.#keyCache = embedded ? new Map() : undefined;
    this.#packageCache = embedded ? new Map() : undefined;
    this.#findingsCache = embedded ? new Map() : undefined;
  }

  /** Every write to packages or findings calls this, after its transaction. */
  #stateChanged(): void {
    this.#stateGeneration++;
    this.#packageCache?.clear();
    this.#findingsCache?.clear();
  }

  /** Read through a cache that a concurrent write may invalidate: such a read is used, not kept. */
  async #cached<K, V>(cache: Map<K, V> | undefined, key: K, load: () => Promise<V>): Promise<V> {
    if (!cache) return load();
    if (cache.has(key)) return cache.get(key) as V;
    const generation = this.#stateGeneration;
    const value = await load();
    if (generation === this.#stateGeneration) {
      if (cache.size >= 10_000) cache.clear();
      cache.set(key, value);
    }
    return value;
  }

  /** Every write to keys or accounts calls this (after its transaction committed or failed). */
  #keysChanged(): void {
    this.#keyGeneration++;
    this.#keyCache?.clear();
  }

  /** A transaction that writes keys or accounts: the key cache is cleared after it, committed or not. */
  async #writeKeys<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(fn);
    } finally {
      this.#keysChanged();
    }
  }

  /** A transaction that writes packages or findings: the read caches are cleared after it. */
  async #writeState<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(fn);
    } finally {
      this.#stateChanged();
    }
  }

  get kind(): SqlClient['kind'] {
    return this.db.kind;
  }

  migrate(): Promise<number[]> {
    return migrate(this.db);
  }

  async close(): Promise<void> {
    // Rows still queued belong to requests that are waiting for them: commit them first.
    await this.#auditFlush;
    await this.db.close();
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }

  // --- accounts and keys -------------------------------------------------------------------------

  /** Creates the `default` account and the bootstrap key, only while no key exists at all. */
  async bootstrap(key: { id: string; name: string; hash: string; scopes: Scope[] }): Promise<boolean> {
    return this.#writeKeys(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [7_315_002]);
      const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
      if ((rows[0]?.n ?? 0) > 0) return false;
      await tx.query(
        "INSERT INTO accounts (name, plan) VALUES ('default', 'enterprise') ON CONFLICT (name) DO NOTHING",
      );
      await tx.query(
        "INSERT INTO api_keys (id, account, name, key_hash, scopes) VALUES ($1, 'default', $2, $3, $4::jsonb)",
        [key.id, key.name, key.hash, JSON.stringify(key.scopes)],
      );
      await appendAudit(tx, {
        event: 'api_key_created',
        account: 'default',
        details: { key_id: key.id, name: key.name, scopes: key.scopes, bootstrap: true },
      });
      return true;
    });
  }

  /**
   * The hot path's one lookup: the key, its account and (when named) the package, in one query.
   * The key is found by the hash of what the caller sent; the hash is unique and indexed.
   */
  async lookupKey(keyHash: string, packageId?: string): Promise<KeyLookup | null> {
    // Embedded: one process owns the store (the data dir is locked), so keys can be cached and every
    // key or account write below clears the cache. PostgreSQL: other instances write too, so always ask.
    if (this.#keyCache) {
      let key = this.#keyCache.get(keyHash);
      if (key === undefined) {
        const generation = this.#keyGeneration;
        key = await this.#selectKey(keyHash);
        if (this.#keyCache.size >= 10_000) this.#keyCache.clear();
        // A key write that ran meanwhile may have made what we read stale: use it, do not keep it.
        if (generation === this.#keyGeneration) this.#keyCache.set(keyHash, key);
      }
      if (!key) return null;
      return {
        ...key,
        pkg: packageId === undefined ? null : await this.getPackage(key.principal.account, packageId),
      };
    }
    const { rows } = await this.db.query<KeyRow & Partial<PackageRow>>(
      `SELECT ${KEY_COLUMNS}, ${PACKAGE_COLUMNS}
         FROM api_keys k JOIN accounts a ON a.name = k.account
         LEFT JOIN packages p ON p.account = a.name AND p.package_id = $2
        WHERE k.key_hash = $1`,
      [keyHash, packageId ?? null],
    );
    const row = rows[0];
    if (!row) return null;
    return { ...toKey(row), pkg: row.pk == null ? null : toPackage(row as PackageRow) };
  }

  async #selectKey(keyHash: string): Promise<Omit<KeyLookup, 'pkg'> | null> {
    const { rows } = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.name = k.account WHERE k.key_hash = $1`,
      [keyHash],
    );
    return rows[0] ? toKey(rows[0]) : null;
  }

  async getPackage(account: string, packageId: string): Promise<PackageRecord | null> {
    return this.#cached(this.#packageCache, `${account}\u0000${packageId}`, async () => {
      const { rows } = await this.db.query<PackageRow>(
        `SELECT ${PACKAGE_COLUMNS} FROM packages p WHERE p.account = $1 AND p.package_id = $2`,
        [account, packageId],
      );
      return rows[0] ? toPackage(rows[0]) : null;
    });
  }

  async createAccount(
    name: string,
    plan: AccountPlan,
    actor: Principal,
  ): Promise<{ name: string; plan: AccountPlan }> {
    return this.#writeKeys(async (tx) => {
      try {
        await tx.query('INSERT INTO accounts (name, plan) VALUES ($1, $2)', [name, plan]);
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new ServiceError(
            409,
            'account_exists',
            `account "${name}" already exists; change its plan with PATCH /v1/admin/accounts/${name}`,
          );
        }
        throw error;
      }
      await appendAudit(tx, actorEntry(actor, 'account_created', { name, plan }));
      return { name, plan };
    });
  }

  async updateAccountPlan(
    name: string,
    plan: AccountPlan,
    actor: Principal,
  ): Promise<{ name: string; plan: AccountPlan }> {
    return this.#writeKeys(async (tx) => {
      const { rows } = await tx.query<{ plan: AccountPlan }>(
        'UPDATE accounts SET plan = $2 WHERE name = $1 RETURNING plan',
        [name, plan],
      );
      if (rows.length === 0) throw accountNotFound(name);
      await appendAudit(tx, actorEntry(actor, 'account_plan_changed', { name, plan }));
      return { name, plan };
    });
  }

  async createApiKey(
    account: string,
    key: { id: string; name: string; hash: string; scopes: Scope[] },
    actor: Principal,
  ): Promise<void> {
    await this.#writeKeys(async (tx) => {
      const { rows } = await tx.query('SELECT name FROM accounts WHERE name = $1', [account]);
      if (rows.length === 0) throw accountNotFound(account);
      await tx.query(
        'INSERT INTO api_keys (id, account, name, key_hash, scopes) VALUES ($1, $2, $3, $4, $5::jsonb)',
        [key.id, account, key.name, key.hash, JSON.stringify(key.scopes)],
      );
      await appendAudit(
        tx,
        actorEntry(actor, 'api_key_created', {
          key_id: key.id,
          account,
          name: key.name,
          scopes: key.scopes,
        }),
      );
    });
  }

  async revokeApiKey(id: string, actor: Principal): Promise<void> {
    await this.#writeKeys(async (tx) => {
      const { rows } = await tx.query<{ account: string }>(
        'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING account',
        [id],
      );
      if (rows.length === 0) {
        throw new ServiceError(
          404,
          'api_key_not_found',
          `API key "${id}" was not found; list the id printed when the key was created`,
        );
      }
      await appendAudit(tx, actorEntry(actor, 'api_key_revoked', { key_id: id, account: rows[0]!.account }));
    });
  }

  // --- packages ----------------------------------------------------------------------------------

  /** Creates or updates a package's design. A changed design must be approved again. */
  async putPackage(
    principal: Principal,
    packageId: string,
    design: Design,
    revision: string,
  ): Promise<{ pkg: PackageRecord; created: boolean; changed: boolean }> {
    return this.#writeState(async (tx) => {
      const existing = await tx.query<PackageRow>(
        `SELECT ${PACKAGE_COLUMNS} FROM packages p WHERE p.account = $1 AND p.package_id = $2 FOR NO KEY UPDATE`,
        [principal.account, packageId],
      );
      const current = existing.rows[0];
      if (current && current.revision === revision) {
        return { pkg: toPackage(current), created: false, changed: false };
      }
      let row: PackageRow;
      if (current) {
        const updated = await tx.query<PackageRow>(
          `UPDATE packages p SET design = $2::jsonb, revision = $3, updated_at = now() WHERE p.pk = $1 RETURNING ${PACKAGE_COLUMNS}`,
          [current.pk, JSON.stringify(design), revision],
        );
        row = updated.rows[0]!;
      } else {
        const inserted = await tx.query<PackageRow>(
          `INSERT INTO packages AS p (account, package_id, design, revision) VALUES ($1, $2, $3::jsonb, $4) RETURNING ${PACKAGE_COLUMNS}`,
          [principal.account, packageId, JSON.stringify(design), revision],
        );
        row = inserted.rows[0]!;
      }
      await appendAudit(tx, {
        ...actorEntry(principal, current ? 'design_changed' : 'package_created', {
          revision,
          previous_revision: current?.revision ?? null,
        }),
        packagePk: row.pk,
        packageId,
      });
      return { pkg: toPackage(row), created: !current, changed: true };
    });
  }

  async approvePackage(
    principal: Principal,
    pkg: PackageRecord,
    revision: string | undefined,
  ): Promise<PackageRecord> {
    return this.#writeState(async (tx) => {
      const { rows } = await tx.query<PackageRow>(
        `SELECT ${PACKAGE_COLUMNS} FROM packages p WHERE p.pk = $1 FOR NO KEY UPDATE`,
        [pkg.pk],
      );
      const current = rows[0]!;
      if (revision !== undefined && revision !== current.revision) {
        throw new ServiceError(
          409,
          'revision_mismatch',
          `the design changed: current revision is ${current.revision}, not ${revision}; review the current design and approve that revision`,
        );
      }
      if (current.approved_revision === current.revision) return toPackage(current);
      const updated = await tx.query<PackageRow>(
        `UPDATE packages p SET approved_revision = revision, approved_at = now(), approved_by = $2, next_check_at = NULL
          WHERE p.pk = $1 RETURNING ${PACKAGE_COLUMNS}`,
        [pkg.pk, principal.keyName],
      );
      await appendAudit(tx, packageEntry(principal, pkg, 'package_approved', { revision: current.revision }));
      return toPackage(updated.rows[0]!);
    });
  }

  async putObservedState(
    principal: Principal,
    pkg: PackageRecord,
    resources: ObservedResource[],
    terraformVersion: string | undefined,
  ): Promise<{ pushedAt: string }> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ pushed_at: unknown }>(
        `INSERT INTO observed_state (package_pk, resources, resource_count, terraform_version, pushed_by)
         VALUES ($1, $2::jsonb, $3, $4, $5)
         ON CONFLICT (package_pk) DO UPDATE SET resources = EXCLUDED.resources, resource_count = EXCLUDED.resource_count,
           terraform_version = EXCLUDED.terraform_version, pushed_by = EXCLUDED.pushed_by, pushed_at = now()
         RETURNING pushed_at`,
        [pkg.pk, JSON.stringify(resources), resources.length, terraformVersion ?? null, principal.keyName],
      );
      await appendAudit(
        tx,
        packageEntry(principal, pkg, 'observed_state_pushed', { resources: resources.length }),
      );
      return { pushedAt: iso(rows[0]!.pushed_at) };
    });
  }

  async getObservedState(
    pkg: PackageRecord,
  ): Promise<{ resources: ObservedResource[]; pushedAt: string } | null> {
    const { rows } = await this.db.query<{ resources: ObservedResource[]; pushed_at: unknown }>(
      'SELECT resources, pushed_at FROM observed_state WHERE package_pk = $1',
      [pkg.pk],
    );
    const row = rows[0];
    return row ? { resources: row.resources, pushedAt: iso(row.pushed_at) } : null;
  }

  // --- drift -------------------------------------------------------------------------------------

  /**
   * Records a drift check's results: new findings open, findings no longer observed resolve, resolved
   * findings that come back reopen (their acknowledgement is gone). `beforeCommit` may throw to abort
   * (the time limit), so a late check leaves nothing behind.
   */
  async recordDriftCheck(
    pkg: PackageRecord,
    detected: DetectedDrift[],
    check: {
      revision: string;
      trigger: 'scheduled' | 'refresh' | 'manual' | 'gate';
      instance: string;
      startedAt: Date;
    },
    beforeCommit: () => void = () => undefined,
  ): Promise<DriftCheckOutcome> {
    return this.#writeState(async (tx) => {
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
               status = 'open', last_seen_at = $10, resolved_at = NULL, ack_by = NULL, ack_account = NULL, ack_at = NULL, ack_reason = NULL
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
        'INSERT INTO drift_checks (package_pk, revision, trigger, instance, started_at, finished_at, detected) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [
          pkg.pk,
          check.revision,
          check.trigger,
          check.instance,
          check.startedAt.toISOString(),
          now,
          seen.size,
        ],
      );
      await tx.query('UPDATE packages SET last_check_at = $2, last_check_revision = $3 WHERE pk = $1', [
        pkg.pk,
        now,
        check.revision,
      ]);
      if (opened + reopened + resolved > 0) {
        await appendAudit(tx, {
          event: 'drift_checked',
          account: pkg.account,
          packagePk: pkg.pk,
          packageId: pkg.packageId,
          details: { trigger: check.trigger, detected: seen.size, opened, reopened, resolved },
        });
      }
      beforeCommit();
      return { checkedAt: now, opened, reopened, resolved, detected: seen.size };
    });
  }

  async listFindings(pkg: PackageRecord, status?: FindingStatus): Promise<DriftFinding[]> {
    const { rows } =
      status === undefined
        ? await this.db.query<FindingRow>(
            `SELECT ${FINDING_COLUMNS} FROM findings WHERE package_pk = $1 ORDER BY id`,
            [pkg.pk],
          )
        : await this.db.query<FindingRow>(
            `SELECT ${FINDING_COLUMNS} FROM findings WHERE package_pk = $1 AND status = $2 ORDER BY id`,
            [pkg.pk, status],
          );
    return rows.map(toFinding);
  }

  /** The gate's one findings query: everything not resolved. */
  async unresolvedFindings(pkg: PackageRecord): Promise<DriftFinding[]> {
    return this.#cached(this.#findingsCache, pkg.pk, async () => {
      const { rows } = await this.db.query<FindingRow>(
        `SELECT ${FINDING_COLUMNS} FROM findings WHERE package_pk = $1 AND status <> 'resolved' ORDER BY id`,
        [pkg.pk],
      );
      return rows.map(toFinding);
    });
  }

  async acknowledge(
    principal: Principal,
    pkg: PackageRecord,
    findingId: string,
    reason: string,
  ): Promise<DriftFinding> {
    return this.#writeState(async (tx) => {
      const { rows } = await tx.query<FindingRow>(
        `SELECT ${FINDING_COLUMNS} FROM findings WHERE package_pk = $1 AND id = $2 FOR NO KEY UPDATE`,
        [pkg.pk, findingId],
      );
      const finding = rows[0];
      if (!finding) {
        throw new ServiceError(
          404,
          'finding_not_found',
          `finding "${findingId}" was not found in package "${pkg.packageId}"; list findings with GET /v1/analysis/conformance/packages/${pkg.packageId}/findings`,
        );
      }
      if (finding.status === 'resolved') {
        throw new ServiceError(
          409,
          'finding_resolved',
          `finding "${findingId}" is resolved (no longer observed); there is nothing to acknowledge`,
        );
      }
      const { rows: ackRows } = await tx.query<{ at: unknown }>(
        `INSERT INTO acknowledgements (package_pk, finding_id, account, key_id, key_name, reason)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING at`,
        [pkg.pk, findingId, principal.account, principal.keyId, principal.keyName, reason],
      );
      const at = ackRows[0]!.at;
      const { rows: updated } = await tx.query<FindingRow>(
        `UPDATE findings SET status = 'acknowledged', ack_by = $3, ack_account = $4, ack_at = $5, ack_reason = $6
          WHERE package_pk = $1 AND id = $2 RETURNING ${FINDING_COLUMNS}`,
        [pkg.pk, findingId, principal.keyName, principal.account, iso(at), reason],
      );
      await appendAudit(
        tx,
        packageEntry(principal, pkg, 'finding_acknowledged', {
          finding_id: findingId,
          rule: finding.rule,
          severity: finding.severity,
          address: finding.address,
          reason,
        }),
      );
      return toFinding(updated[0]!);
    });
  }

  // --- audit -------------------------------------------------------------------------------------

  /**
   * The gate's and the evaluation's audit row, committed before the answer (group commit). Rows queue
   * until the end of the event-loop turn (`setImmediate`), so every request that arrived in that turn
   * shares one multi-row INSERT and one commit; alone, a call waits for no timer, only for its commit.
   */
  appendAudit(entry: AuditEntry): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#auditQueue.push({ entry, resolve, reject });
      // Not answer-first-write-later: an answered gate decision is always in the audit log, even after kill -9.
      // PGlite runs each query synchronously, so flushing at once would commit one row per request.
      this.#auditFlush ??= new Promise<void>((done) => setImmediate(done)).then(() => this.#flushAudit());
    });
  }

  async #flushAudit(): Promise<void> {
    try {
      while (this.#auditQueue.length > 0) {
        const batch = this.#auditQueue.splice(0, 500);
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
      this.#auditFlush = undefined;
    }
  }

  async listAudit(pkg: PackageRecord, options: { after?: string; limit: number }): Promise<AuditRecord[]> {
    const { rows } = await this.db.query<Omit<AuditRecord, 'at'> & { at: unknown }>(
      // ORDER BY audit.id, the bigint column: a bare "id" would name the text alias, and paging by
      // next_after over a text order ("10" < "9") skipped rows.
      `SELECT id::text AS id, at, event, account, package_id, key_id, key_name, details FROM audit
        WHERE package_pk = $1 AND audit.id > $2::bigint ORDER BY audit.id LIMIT $3`,
      [pkg.pk, options.after ?? '0', options.limit],
    );
    return rows.map((r) => ({ ...r, at: iso(r.at) }));
  }

  // --- bundles, settings, scheduling -------------------------------------------------------------

  async getBundle(pkg: PackageRecord, revision: string): Promise<Buffer | null> {
    const { rows } = await this.db.query<{ bytes: Uint8Array }>(
      'SELECT bytes FROM bundles WHERE package_pk = $1 AND revision = $2',
      [pkg.pk, revision],
    );
    return rows[0] ? Buffer.from(rows[0].bytes) : null;
  }

  async putBundle(pkg: PackageRecord, revision: string, bytes: Buffer): Promise<void> {
    await this.db.query(
      'INSERT INTO bundles (package_pk, revision, bytes) VALUES ($1, $2, $3) ON CONFLICT (package_pk, revision) DO NOTHING',
      [pkg.pk, revision, bytes],
    );
  }

  async getSetting(key: string): Promise<string | null> {
    const { rows } = await this.db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [
      key,
    ]);
    return rows[0]?.value ?? null;
  }

  /** First writer wins: returns the stored value, which is `value` only if nobody stored one before. */
  async putSettingIfAbsent(key: string, value: string): Promise<string> {
    await this.db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
      key,
      value,
    ]);
    return (await this.getSetting(key))!;
  }

  async setSetting(key: string, value: string): Promise<void> {
    await this.db.query(
      'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()',
      [key, value],
    );
  }

  /**
   * Claims the packages whose scheduled drift check is due, in the database: the claim moves
   * next_check_at one interval ahead in the same statement, so across every instance sharing the
   * database each package is checked once per interval.
   */
  async claimDueChecks(intervalMs: number, limit: number): Promise<PackageRecord[]> {
    const { rows } = await this.db.query<PackageRow>(
      `UPDATE packages p SET next_check_at = now() + ($1::int * interval '1 millisecond')
        WHERE p.pk IN (
          SELECT q.pk FROM packages q JOIN observed_state s ON s.package_pk = q.pk
           WHERE q.approved_revision = q.revision AND (q.next_check_at IS NULL OR q.next_check_at <= now())
           ORDER BY q.next_check_at NULLS FIRST LIMIT $2 FOR NO KEY UPDATE OF q SKIP LOCKED)
        RETURNING ${PACKAGE_COLUMNS}`,
      [intervalMs, limit],
    );
    return rows.map(toPackage);
  }

  async listDriftChecks(
    pkg: PackageRecord,
  ): Promise<Array<{ trigger: string; instance: string; finishedAt: string }>> {
    const { rows } = await this.db.query<{ trigger: string; instance: string; finished_at: unknown }>(
      'SELECT trigger, instance, finished_at FROM drift_checks WHERE package_pk = $1 ORDER BY id',
      [pkg.pk],
    );
    return rows.map((r) => ({ trigger: r.trigger, instance: r.instance, finishedAt: iso(r.finished_at) }));
  }
}

function accountNotFound(name: string): ServiceError {
  return new ServiceError(
    404,
    'account_not_found',
    `account "${name}" was not found; create it with POST /v1/admin/accounts`,
  );
}

function actorEntry(actor: Principal, event: string, details: Record<string, unknown>): AuditEntry {
  return { event, account: actor.account, keyId: actor.keyId, keyName: actor.keyName, details };
}

/** An audit entry for something a key did to a package. */
export function packageEntry(
  actor: Principal,
  pkg: PackageRecord,
  event: string,
  details: Record<string, unknown>,
): AuditEntry {
  return { ...actorEntry(actor, event, details), packagePk: pkg.pk, packageId: pkg.packageId };
}

async function appendAudit(db: SqlExecutor, entry: AuditEntry): Promise<void> {
  await insertAudit(db, [entry]);
}

async function insertAudit(db: SqlExecutor, entries: AuditEntry[]): Promise<void> {
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
