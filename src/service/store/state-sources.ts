// Each package's state source: the backend its drift checks read the state from, and the fallback.
import type { BackendValue } from '../../terraform/backend-state.js';
import type { Principal, StateBackendType, StateFallback } from '../types.js';
import { insertAudit, packageEntry } from './audit.js';
import { iso, type PackageRecord } from './rows.js';
import type { SqlClient } from './sql.js';

export interface StateSourceRecord {
  type: StateBackendType;
  config: Record<string, BackendValue>;
  fallback: StateFallback;
  updatedAt: string;
  updatedBy: string;
}

type Row = {
  type: StateSourceRecord['type'];
  config: Record<string, BackendValue>;
  fallback: StateSourceRecord['fallback'];
  updated_at: unknown;
  updated_by: string;
};

const toRecord = (row: Row): StateSourceRecord => ({
  type: row.type,
  config: row.config,
  fallback: row.fallback,
  updatedAt: iso(row.updated_at),
  updatedBy: row.updated_by,
});

export class StateSourceRepository {
  constructor(private readonly db: SqlClient) {}

  /** Not cached: read by drift checks only, never on the gate's path without refresh. */
  async get(pkg: Pick<PackageRecord, 'pk'>): Promise<StateSourceRecord | null> {
    const { rows } = await this.db.query<Row>(
      'SELECT type, config, fallback, updated_at, updated_by FROM state_sources WHERE package_pk = $1',
      [pkg.pk],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Sets (or replaces) the source; audited with its settings, which hold no secret (the core refused them). */
  put(
    principal: Principal,
    pkg: PackageRecord,
    source: Pick<StateSourceRecord, 'type' | 'config' | 'fallback'>,
  ): Promise<StateSourceRecord> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<Row>(
        `INSERT INTO state_sources (package_pk, type, config, fallback, updated_by) VALUES ($1, $2, $3::jsonb, $4, $5)
         ON CONFLICT (package_pk) DO UPDATE SET type = EXCLUDED.type, config = EXCLUDED.config,
           fallback = EXCLUDED.fallback, updated_by = EXCLUDED.updated_by, updated_at = now()
         RETURNING type, config, fallback, updated_at, updated_by`,
        [pkg.pk, source.type, JSON.stringify(source.config), source.fallback, principal.keyName],
      );
      await insertAudit(tx, [
        packageEntry(principal, pkg, 'state_source_set', {
          type: source.type,
          config: source.config,
          fallback: source.fallback,
        }),
      ]);
      return toRecord(rows[0]!);
    });
  }

  /** Back to pushed state. Returns whether there was a source; audited only then. */
  delete(principal: Principal, pkg: PackageRecord): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ type: string }>(
        'DELETE FROM state_sources WHERE package_pk = $1 RETURNING type',
        [pkg.pk],
      );
      if (rows.length === 0) return false;
      await insertAudit(tx, [packageEntry(principal, pkg, 'state_source_cleared', { type: rows[0]!.type })]);
      return true;
    });
  }
}
