// The store: embedded PGlite by default, PostgreSQL when a database URL is given. Same schema for both.
import { openEmbedded } from './pglite.js';
import { openPostgres } from './postgres.js';
import { Store } from './store.js';

export type { SqlClient, SqlExecutor } from './sql.js';
export type { AuditEntry, AuditRecord, DriftCheckOutcome, KeyLookup, PackageRecord } from './store.js';
export { packageEntry, Store } from './store.js';

export type StoreLocation = { databaseUrl: string } | { dataDir: string };

export async function openStore(location: StoreLocation): Promise<Store> {
  const db =
    'databaseUrl' in location
      ? await openPostgres(location.databaseUrl)
      : await openEmbedded(location.dataDir);
  const store = new Store(db);
  await store.migrate();
  return store;
}
