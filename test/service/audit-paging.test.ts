// Paging the audit log with next_after returns every row, in id order, on both stores (SQLite and a real
// PostgreSQL). Issue 8, defect 6: rows were ordered by their id as text ("10" < "9"), so paging skipped
// rows (one database returned 1,031 of 1,871). The pages here cross the 9→10 and 99→100 boundaries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design, STATE_WITH_QUEUE } from './fixtures.js';

interface AuditPage {
  entries: Array<{ id: string; event: string }>;
  next_after: string | null;
}

const GATE_CALLS = 120;

let postgres: TestPostgres | undefined;
const services: Record<string, TestService> = {};

beforeAll(async () => {
  postgres = await startPostgres();
  const [embedded, onPostgres] = await Promise.all([
    startService(),
    startService({ env: { TFGATE_DATABASE_URL: postgres.createDatabase('tfgate_audit_paging') } }),
  ]);
  services.embedded = embedded;
  services.postgres = onPostgres;
}, 180_000);

afterAll(async () => {
  await Promise.all(Object.values(services).map((s) => s.stop()));
  postgres?.stop();
});

/** Every entry, following next_after page by page. */
async function pageThrough(svc: TestService, id: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after = '0';
  for (let pages = 0; pages < 1000; pages++) {
    const page = await api<AuditPage>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/${id}/audit?after=${after}&limit=${limit}`,
    );
    expect(page.status, page.text).toBe(200);
    ids.push(...page.body.entries.map((e) => e.id));
    if (page.body.next_after === null) return ids;
    after = page.body.next_after;
  }
  throw new Error('next_after never reached the end');
}

describe.each(['embedded', 'postgres'])('the audit API on the %s store', (store) => {
  it(`pages through ${GATE_CALLS}+ rows with next_after, across ids 9→10 and 99→100, skipping none`, async () => {
    const svc = services[store]!;
    const id = await createApprovedPackage(svc, design(`audit-paging-${store}`), {
      observedState: STATE_WITH_QUEUE,
    });
    for (let i = 0; i < GATE_CALLS; i++) {
      expect((await api(svc, 'POST', `${CONFORMANCE}/packages/${id}/gate`)).status).toBe(200);
    }
    const whole = await api<AuditPage>(svc, 'GET', `${CONFORMANCE}/packages/${id}/audit?limit=1000`);
    const all = whole.body.entries.map((e) => e.id);
    expect(all.length).toBeGreaterThan(GATE_CALLS);
    expect(whole.body.entries.filter((e) => e.event === 'gate_decided')).toHaveLength(GATE_CALLS);
    // Oldest first means by number, not by text.
    const numeric = all.map(Number);
    expect(numeric).toEqual([...numeric].sort((a, b) => a - b));
    expect(Math.min(...numeric)).toBeLessThan(10);
    expect(Math.max(...numeric)).toBeGreaterThanOrEqual(100);

    for (const limit of [7, 10, 20]) {
      const paged = await pageThrough(svc, id, limit);
      expect(paged, `limit=${limit}`).toEqual(all);
    }
  });
});
