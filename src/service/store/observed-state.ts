// A package's observed state: the resources read from `terraform show -json` on its state, one per package.
import type { ObservedResource } from '../../model/index.js';
import type { Principal } from '../types.js';
import { insertAudit, packageEntry } from './audit.js';
import { type StoreCaches, writeState } from './caches.js';
import { iso, type PackageRecord } from './rows.js';
import type { SqlClient } from './sql.js';

export class ObservedStateRepository {
  constructor(
    private readonly db: SqlClient,
    private readonly caches: StoreCaches,
  ) {}

  /**
   * Stores the snapshot. Where it is what drift checks judge (no state source), the package's last check
   * no longer counts for the gate, which runs one on this snapshot first: a release job pushing its state
   * and gating at once was judged on the snapshot before (a pass while the new one missed a dependency).
   */
  put(
    principal: Principal,
    pkg: PackageRecord,
    resources: ObservedResource[],
    terraformVersion: string | undefined,
  ): Promise<{ pushedAt: string }> {
    return writeState(this.db, this.caches, async (tx) => {
      const { rows } = await tx.query<{ pushed_at: unknown }>(
        `INSERT INTO observed_state (package_pk, resources, resource_count, terraform_version, pushed_by)
         VALUES ($1, $2::jsonb, $3, $4, $5)
         ON CONFLICT (package_pk) DO UPDATE SET resources = EXCLUDED.resources, resource_count = EXCLUDED.resource_count,
           terraform_version = EXCLUDED.terraform_version, pushed_by = EXCLUDED.pushed_by, pushed_at = now()
         RETURNING pushed_at`,
        [pkg.pk, JSON.stringify(resources), resources.length, terraformVersion ?? null, principal.keyName],
      );
      await tx.query(
        'UPDATE packages SET last_check_revision = NULL WHERE pk = $1 AND NOT EXISTS (SELECT 1 FROM state_sources WHERE package_pk = $1)',
        [pkg.pk],
      );
      await insertAudit(tx, [
        packageEntry(principal, pkg, 'observed_state_pushed', { resources: resources.length }),
      ]);
      return { pushedAt: iso(rows[0]!.pushed_at) };
    });
  }

  async get(pkg: PackageRecord): Promise<{ resources: ObservedResource[]; pushedAt: string } | null> {
    const { rows } = await this.db.query<{ resources: ObservedResource[]; pushed_at: unknown }>(
      'SELECT resources, pushed_at FROM observed_state WHERE package_pk = $1',
      [pkg.pk],
    );
    const row = rows[0];
    return row ? { resources: row.resources, pushedAt: iso(row.pushed_at) } : null;
  }
}
