// Packages: the design, its revision and approval, and the scheduler's claim of due drift checks.
import type { Design } from '../../design/index.js';
import type { Principal } from '../types.js';
import { actorEntry, insertAudit, packageEntry } from './audit.js';
import { type StoreCaches, writeState } from './caches.js';
import { recordDesignRevision } from './design-revisions.js';
import { ConflictError } from './errors.js';
import { PACKAGE_COLUMNS, type PackageRecord, type PackageRow, toPackage } from './rows.js';
import type { SqlClient } from './sql.js';

export class PackageRepository {
  constructor(
    private readonly db: SqlClient,
    private readonly caches: StoreCaches,
  ) {}

  async get(account: string, packageId: string): Promise<PackageRecord | null> {
    return this.caches.packages.read(`${account}\u0000${packageId}`, async () => {
      const { rows } = await this.db.query<PackageRow>(
        `SELECT ${PACKAGE_COLUMNS} FROM packages p WHERE p.account = $1 AND p.package_id = $2`,
        [account, packageId],
      );
      return rows[0] ? toPackage(rows[0]) : null;
    });
  }

  /** Creates or updates a package's design. A changed design must be approved again. */
  put(
    principal: Principal,
    packageId: string,
    design: Design,
    revision: string,
  ): Promise<{ pkg: PackageRecord; created: boolean; changed: boolean }> {
    return writeState(this.db, this.caches, async (tx) => {
      const existing = await tx.query<PackageRow>(
        `SELECT ${PACKAGE_COLUMNS} FROM packages p WHERE p.account = $1 AND p.package_id = $2 FOR NO KEY UPDATE`,
        [principal.account, packageId],
      );
      const current = existing.rows[0];
      if (current && current.revision === revision) {
        return { pkg: toPackage(current), created: false, changed: false };
      }
      const { rows } = current
        ? await tx.query<PackageRow>(
            `UPDATE packages p SET design = $2::jsonb, revision = $3, updated_at = now() WHERE p.pk = $1 RETURNING ${PACKAGE_COLUMNS}`,
            [current.pk, JSON.stringify(design), revision],
          )
        : await tx.query<PackageRow>(
            `INSERT INTO packages AS p (account, package_id, design, revision) VALUES ($1, $2, $3::jsonb, $4) RETURNING ${PACKAGE_COLUMNS}`,
            [principal.account, packageId, JSON.stringify(design), revision],
          );
      const row = rows[0]!;
      await recordDesignRevision(tx, row.pk, revision, design, principal.keyName);
      await insertAudit(tx, [
        {
          ...actorEntry(principal, current ? 'design_changed' : 'package_created', {
            revision,
            previous_revision: current?.revision ?? null,
          }),
          packagePk: row.pk,
          packageId,
        },
      ]);
      return { pkg: toPackage(row), created: !current, changed: true };
    });
  }

  /**
   * Approves the current design; with `revision`, only if that is still the current one (else ConflictError
   * `revision_mismatch`).
   */
  approve(principal: Principal, pkg: PackageRecord, revision: string | undefined): Promise<PackageRecord> {
    return writeState(this.db, this.caches, async (tx) => {
      const { rows } = await tx.query<PackageRow>(
        `SELECT ${PACKAGE_COLUMNS} FROM packages p WHERE p.pk = $1 FOR NO KEY UPDATE`,
        [pkg.pk],
      );
      const current = rows[0]!;
      if (revision !== undefined && revision !== current.revision) {
        throw new ConflictError(
          { code: 'revision_mismatch', current: current.revision, requested: revision },
          `the design changed: current revision is ${current.revision}, not ${revision}`,
        );
      }
      if (current.approved_revision === current.revision) return toPackage(current);
      const updated = await tx.query<PackageRow>(
        `UPDATE packages p SET approved_revision = revision, approved_at = now(), approved_by = $2, next_check_at = NULL
          WHERE p.pk = $1 RETURNING ${PACKAGE_COLUMNS}`,
        [pkg.pk, principal.keyName],
      );
      await insertAudit(tx, [
        packageEntry(principal, pkg, 'package_approved', { revision: current.revision }),
      ]);
      return toPackage(updated.rows[0]!);
    });
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
          SELECT q.pk FROM packages q
           WHERE q.approved_revision = q.revision AND (q.next_check_at IS NULL OR q.next_check_at <= now())
             AND (EXISTS (SELECT 1 FROM observed_state s WHERE s.package_pk = q.pk)
               OR EXISTS (SELECT 1 FROM state_sources t WHERE t.package_pk = q.pk))
           ORDER BY q.next_check_at NULLS FIRST LIMIT $2 FOR NO KEY UPDATE OF q SKIP LOCKED)
        RETURNING ${PACKAGE_COLUMNS}`,
      [intervalMs, limit],
    );
    return rows.map(toPackage);
  }
}
