// Signed bundles, kept per package and revision so every instance serves the same bytes.
import type { PackageRecord } from './rows.js';
import type { SqlClient } from './sql.js';

export class BundleRepository {
  constructor(private readonly db: SqlClient) {}

  async get(pkg: PackageRecord, revision: string): Promise<Buffer | null> {
    const { rows } = await this.db.query<{ bytes: Uint8Array }>(
      'SELECT bytes FROM bundles WHERE package_pk = $1 AND revision = $2',
      [pkg.pk, revision],
    );
    return rows[0] ? Buffer.from(rows[0].bytes) : null;
  }

  async put(pkg: PackageRecord, revision: string, bytes: Buffer): Promise<void> {
    await this.db.query(
      'INSERT INTO bundles (package_pk, revision, bytes) VALUES ($1, $2, $3) ON CONFLICT (package_pk, revision) DO NOTHING',
      [pkg.pk, revision, bytes],
    );
  }
}
