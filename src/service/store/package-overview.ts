// The account's packages with their findings counts: the dashboard's first page.
import { PACKAGE_COLUMNS, type PackageRecord, type PackageRow, toPackage } from './rows.js';
import type { SqlClient } from './sql.js';

export interface PackageOverview {
  pkg: PackageRecord;
  open: number;
  acknowledged: number;
}

export class PackageOverviewRepository {
  constructor(private readonly db: SqlClient) {}

  /** Every package of the account, by id, with how many findings are open and acknowledged. */
  async list(account: string): Promise<PackageOverview[]> {
    const { rows } = await this.db.query<PackageRow & { open: number; acknowledged: number }>(
      `SELECT ${PACKAGE_COLUMNS},
              (SELECT count(*)::int FROM findings f WHERE f.package_pk = p.pk AND f.status = 'open') AS open,
              (SELECT count(*)::int FROM findings f WHERE f.package_pk = p.pk AND f.status = 'acknowledged') AS acknowledged
         FROM packages p WHERE p.account = $1 ORDER BY p.package_id`,
      [account],
    );
    return rows.map((row) => ({ pkg: toPackage(row), open: row.open, acknowledged: row.acknowledged }));
  }
}
