// Every design revision a package was pushed with: the approved one stays readable after a newer push.
import type { Design } from '../../design/index.js';
import { iso, type PackageRecord } from './rows.js';
import type { SqlClient, SqlExecutor } from './sql.js';

export interface DesignRevisionRecord {
  revision: string;
  design: Design;
  pushedAt: string;
  /** The key name that pushed it; null for a design stored before revisions were kept. */
  pushedBy: string | null;
}

/** Records a pushed revision inside the push's transaction; a revision pushed again keeps its first record. */
export async function recordDesignRevision(
  tx: SqlExecutor,
  packagePk: number,
  revision: string,
  design: Design,
  pushedBy: string,
): Promise<void> {
  await tx.query(
    `INSERT INTO design_revisions (package_pk, revision, design, pushed_by) VALUES ($1, $2, $3::jsonb, $4)
      ON CONFLICT (package_pk, revision) DO NOTHING`,
    [packagePk, revision, JSON.stringify(design), pushedBy],
  );
}

type RevisionRow = { revision: string; design: Design; pushed_at: unknown; pushed_by: string | null };

const toRevision = (row: RevisionRow): DesignRevisionRecord => ({
  revision: row.revision,
  design: row.design,
  pushedAt: iso(row.pushed_at),
  pushedBy: row.pushed_by,
});

export class DesignRevisionRepository {
  constructor(private readonly db: SqlClient) {}

  /** One revision of the package's design, or null when it was never pushed (or not kept). */
  async get(pkg: Pick<PackageRecord, 'pk'>, revision: string): Promise<DesignRevisionRecord | null> {
    const { rows } = await this.db.query<RevisionRow>(
      'SELECT revision, design, pushed_at, pushed_by FROM design_revisions WHERE package_pk = $1 AND revision = $2',
      [pkg.pk, revision],
    );
    return rows[0] ? toRevision(rows[0]) : null;
  }
}
