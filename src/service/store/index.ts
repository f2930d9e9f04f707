// The store: embedded SQLite (node:sqlite) by default, PostgreSQL when a database URL is given. Same schema for both.

import { openPostgres } from './postgres.js';
import { type EmbeddedSync, openEmbedded } from './sqlite.js';
import { Store } from './store.js';

export type { NewApiKey } from './api-keys.js';
export { type AuditEntry, type AuditRecord, actorEntry, packageEntry } from './audit.js';
export type { ReadCache, StoreCaches } from './caches.js';
export type { DriftCheckOutcome, DriftTrigger } from './drift-checks.js';
export { ConflictError, NotFoundError, StoreError, type StoreErrorSubject } from './errors.js';
export type { KeyLookup, KeyRecord, PackageRecord } from './rows.js';
export type { NewRunTask, RunTaskConfigRecord, RunTaskRecord } from './run-tasks.js';
export type { SqlClient, SqlExecutor } from './sql.js';
export type { EmbeddedSync } from './sqlite.js';
export type { StateSourceRecord } from './state-sources.js';
export { Store } from './store.js';

export type StoreLocation =
  | {
      databaseUrl: string;
      /** How long opening a connection may take (default 10 s): an unanswered one fails, never hangs. */
      connectTimeoutMs?: number;
    }
  | {
      dataDir: string;
      sync?: EmbeddedSync;
      /** Told when the data dir is usable and holds no store yet, before the new store is created. */
      creating?: () => void;
    };

export async function openStore(location: StoreLocation): Promise<Store> {
  const db =
    'databaseUrl' in location
      ? await openPostgres(location.databaseUrl, { connectTimeoutMs: location.connectTimeoutMs })
      : await openEmbedded(location.dataDir, location.sync, location.creating);
  const store = new Store(db);
  await store.migrate();
  return store;
}
