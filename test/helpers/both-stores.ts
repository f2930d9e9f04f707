// One service on the embedded store and one on a throwaway PostgreSQL, for tests that must hold on both.
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type TestPostgres } from './postgres.js';
import { startService, type TestService } from './service.js';

export const STORES = ['embedded', 'postgres'] as const;
export type StoreName = (typeof STORES)[number];

/** Starts both services before the file's tests (database `database` on PostgreSQL) and stops them after. */
export function useBothStores(database: string): Record<StoreName, TestService> {
  const services = {} as Record<StoreName, TestService>;
  let postgres: TestPostgres | undefined;
  beforeAll(async () => {
    postgres = await startPostgres();
    const [embedded, onPostgres] = await Promise.all([
      startService(),
      startService({ env: { TFGATE_DATABASE_URL: postgres.createDatabase(database) } }),
    ]);
    services.embedded = embedded;
    services.postgres = onPostgres;
  }, 180_000);
  afterAll(async () => {
    await Promise.all(Object.values(services).map((s) => s.stop()));
    postgres?.stop();
  });
  return services;
}
