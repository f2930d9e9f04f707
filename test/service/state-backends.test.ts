// Drift read from the state backend, with real backends and the real terraform and tofu: a `terraform apply`
// changes reality (pg on a real PostgreSQL, http on a loopback implementation of the http backend protocol,
// local) and the very next refresh=true gate sees it with no push. A read that fails (credentials refused,
// a backend that never answers, no state) is never a pass on the old snapshot, unless the package chose
// fallback: pushed, and then the result says so. Records on both stores.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JudgedState } from '../../src/model/index.js';
import { type HttpStateBackend, startHttpStateBackend } from '../helpers/http-state-backend.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { TerraformWorkspace, type TfState, TOFU_BIN } from '../helpers/terraform.js';
import { stateJson } from './fixtures.js';

type Gate = {
  decision: string;
  refreshed: boolean;
  state?: JudgedState;
  blocking: Array<{ rule: string; address: string }>;
  error?: { code: string; message: string; details?: Record<string, unknown> };
};

/** Processes whose command line names a state-reading scratch directory (Linux /proc). */
function readingProcesses(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes('tfgate-state-')) found.push(`${pid}: ${cmdline}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

const PG_PASSWORD = 'pg-secret-Zq7';
const HTTP_USER = 'state-reader';
const HTTP_PASSWORD = 'http-secret-K9x';

let postgres: TestPostgres;
let http: HttpStateBackend;
let scratch: string;
let cliConfig: string;
const workspaces: TerraformWorkspace[] = [];

/** A design whose one capability depends on terraform_data.ledger: remove it and the gate blocks. */
const ledgerDesign = (id: string) => `package_id: ${id}
sanctioned_kinds: [generic_data]
capabilities:
  - name: ledger
    depends_on: ["terraform_data.ledger"]
catalog:
  terraform_data: generic_data
`;

/** Reality: a configuration of terraform_data resources applied with a real backend. */
class Reality {
  readonly workspace: TerraformWorkspace;
  constructor(
    private readonly backend: Record<string, unknown>,
    private readonly env: Record<string, string> = {},
    bin?: string,
  ) {
    const source = mkdtempSync(join(scratch, 'config-'));
    writeFileSync(join(source, 'main.tf.json'), JSON.stringify({ terraform: { backend } }));
    this.workspace = TerraformWorkspace.create(source, bin === undefined ? {} : { bin });
    workspaces.push(this.workspace);
  }

  /** Apply a configuration holding exactly these terraform_data resources. */
  async apply(names: string[]): Promise<void> {
    const main: Record<string, unknown> = { terraform: { backend: this.backend } };
    if (names.length > 0) {
      main.resource = { terraform_data: Object.fromEntries(names.map((n) => [n, { input: n }])) };
    }
    writeFileSync(join(this.workspace.dir, 'main.tf.json'), JSON.stringify(main));
    await this.workspace.init({ env: this.env });
    await this.workspace.apply([], { env: this.env });
  }
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'tfgate-statesrc-'));
  cliConfig = join(scratch, 'empty.tfrc');
  writeFileSync(cliConfig, '');
  postgres = await startPostgres({ password: PG_PASSWORD });
  http = await startHttpStateBackend({ username: HTTP_USER, password: HTTP_PASSWORD });
}, 180_000);

afterAll(async () => {
  for (const w of workspaces) w.cleanup();
  await http?.close();
  postgres?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The environment the service runs terraform with: the credentials live here, never in the store. */
function serviceEnv(pgConnStr: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CHECKPOINT_DISABLE: '1',
    TF_CLI_CONFIG_FILE: cliConfig,
    PG_CONN_STR: pgConnStr,
    TF_HTTP_USERNAME: HTTP_USER,
    TF_HTTP_PASSWORD: HTTP_PASSWORD,
    ...extra,
  };
}

const STATE_DB = () =>
  `postgres://postgres:${PG_PASSWORD}@127.0.0.1:${new URL(postgres.url).port}/terraform_states?sslmode=disable`;
const BACKENDS = 'pg,http,local';

const gate = (svc: TestService, id: string, query = '?refresh=true&fail_status=true') =>
  api<Gate>(svc, 'POST', `${CONFORMANCE}/packages/${id}/gate${query}`);
const setSource = (svc: TestService, id: string, body: unknown) =>
  api(svc, 'PUT', `${CONFORMANCE}/packages/${id}/state-source`, { body });

let stateDbCreated = false;
function stateDb(): string {
  if (!stateDbCreated) {
    postgres.createDatabase('terraform_states');
    stateDbCreated = true;
  }
  return STATE_DB();
}

describe.each(['embedded', 'postgres'] as const)('drift read from the backend, %s store', (kind) => {
  let svc: TestService;
  beforeAll(async () => {
    const env: Record<string, string> = { TFGATE_STATE_BACKENDS: BACKENDS, TFGATE_STATE_READ_TIMEOUT: '20s' };
    if (kind === 'postgres') env.TFGATE_DATABASE_URL = postgres.createDatabase('tfgate_statesrc');
    svc = await startService({ env, terraformEnv: serviceEnv(stateDb()) });
  }, 120_000);
  afterAll(async () => {
    await svc?.stop();
  });

  /** Apply, gate, change reality, gate again: each gate judges what terraform just wrote. */
  async function seesEveryApply(id: string, reality: Reality, source: string): Promise<void> {
    await reality.apply(['ledger', 'config']);
    const first = await gate(svc, id);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ decision: 'pass', refreshed: true });
    expect(first.body.state).toMatchObject({
      source,
      serial: expect.any(Number),
      lineage: expect.any(String),
    });
    expect(Date.parse(first.body.state!.read_at)).toBeGreaterThan(Date.now() - 60_000);

    // Reality changes: the ledger's resource is destroyed. No push: the next refresh gate sees it.
    await reality.apply(['config']);
    const second = await gate(svc, id);
    expect(second.status).toBe(409);
    expect(second.body.blocking.map((f) => [f.rule, f.address])).toEqual([
      ['capability_dependency_missing', 'terraform_data.ledger'],
    ]);
    expect(second.body.state!.serial).toBeGreaterThan(first.body.state!.serial!);
    expect(second.body.state!.lineage).toBe(first.body.state!.lineage);

    // A gate without refresh uses that last check, and says which state it judged.
    const cached = await gate(svc, id, '?fail_status=true');
    expect(cached.body).toMatchObject({ refreshed: false, state: second.body.state });

    await reality.apply(['ledger', 'config']);
    expect((await gate(svc, id)).status).toBe(200);
  }

  it('pg (a real PostgreSQL; PG_CONN_STR from the environment): the next refresh gate sees every apply', async () => {
    const id = await createApprovedPackage(svc, ledgerDesign(`pg-${kind}`));
    const schema = `tfgate_${kind}`;
    const reality = new Reality({ pg: { schema_name: schema } }, { PG_CONN_STR: stateDb() });
    expect((await setSource(svc, id, { type: 'pg', config: { schema_name: schema } })).status).toBe(200);
    await seesEveryApply(id, reality, 'pg');
  }, 120_000);

  it('http (loopback http backend with basic auth from TF_HTTP_USERNAME/PASSWORD): the next refresh gate sees every apply', async () => {
    const id = await createApprovedPackage(svc, ledgerDesign(`http-${kind}`));
    const config = {
      address: http.address(id),
      lock_address: `${http.address(id)}/lock`,
      unlock_address: `${http.address(id)}/lock`,
    };
    const reality = new Reality(
      { http: config },
      { TF_HTTP_USERNAME: HTTP_USER, TF_HTTP_PASSWORD: HTTP_PASSWORD },
    );
    expect((await setSource(svc, id, { type: 'http', config })).status).toBe(200);
    const before = http.requests.filter((r) => r.method === 'GET' && r.path === `/state/${id}`).length;
    await seesEveryApply(id, reality, 'http');
    // Every refresh gate read the server (apply reads it too: at least one GET per gate).
    const after = http.requests.filter((r) => r.method === 'GET' && r.path === `/state/${id}`).length;
    expect(after - before).toBeGreaterThanOrEqual(3 + 3);
  }, 120_000);

  it('refresh gates arriving at once share reads: at most two per package', async () => {
    const id = await createApprovedPackage(svc, ledgerDesign(`burst-${kind}`));
    const config = { address: http.address(id) };
    const reality = new Reality(
      { http: config },
      { TF_HTTP_USERNAME: HTTP_USER, TF_HTTP_PASSWORD: HTTP_PASSWORD },
    );
    await reality.apply(['ledger']);
    expect((await setSource(svc, id, { type: 'http', config })).status).toBe(200);
    const gets = () => http.requests.filter((r) => r.method === 'GET' && r.path === `/state/${id}`).length;
    const before = gets();
    const single = await gate(svc, id);
    expect(single.status, single.text).toBe(200);
    const perRead = gets() - before;
    expect(perRead).toBeGreaterThan(0);

    const burst = gets();
    const answers = await Promise.all(Array.from({ length: 8 }, () => gate(svc, id)));
    expect(
      answers.map((a) => a.status),
      JSON.stringify(answers.map((a) => a.body)),
    ).toEqual(Array(8).fill(200));
    expect(gets() - burst).toBeLessThanOrEqual(2 * perRead);
  }, 120_000);

  it('local (a path that breaks HCL and holds template syntax is read literally)', async () => {
    const id = await createApprovedPackage(svc, ledgerDesign(`local-${kind}`));
    const dir = join(scratch, `local-${kind}`);
    mkdirSync(dir);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: terraform template syntax, meant literally.
    const statePath = join(dir, 'a"b${path.cwd}%{if true}\nc.tfstate');
    const reality = new Reality({ local: { path: statePath } });
    expect((await setSource(svc, id, { type: 'local', config: { path: statePath } })).status).toBe(200);
    await seesEveryApply(id, reality, 'local');
  }, 120_000);

  it('a state naming real providers (aws, google: never installed, no registry here) is read and judged', async () => {
    // Before, the service ran init (which installs every provider the state names) and `show -json` (which
    // needs their schemas): both failed here with "Failed to query available provider packages" and "Failed
    // to load plugin schemas", so every read of a real state was drift_check_failed.
    const id = await createApprovedPackage(
      svc,
      `package_id: providers-${kind}
sanctioned_kinds: [object_storage]
capabilities:
  - name: ledger
    depends_on: ["aws_s3_bucket.ledger"]
catalog:
  aws_s3_bucket: object_storage
  google_storage_bucket: object_storage
`,
    );
    const statePath = join(scratch, `providers-${kind}.tfstate`);
    const reality = new Reality({ local: { path: statePath } });
    await reality.apply(['ledger', 'logs']);
    // terraform wrote the state; it now names cloud providers, as a real one does (test data: JSON.parse).
    const retype = (names: string[], serial: number) => {
      const state = JSON.parse(readFileSync(statePath, 'utf8')) as TfState;
      state.serial = serial;
      state.resources = state.resources
        .filter((r) => names.includes(r.name))
        .map((r) =>
          r.name === 'ledger'
            ? { ...r, type: 'aws_s3_bucket', provider: 'provider["registry.terraform.io/hashicorp/aws"]' }
            : {
                ...r,
                type: 'google_storage_bucket',
                provider: 'provider["registry.terraform.io/hashicorp/google"]',
              },
        );
      writeFileSync(statePath, JSON.stringify(state));
    };
    retype(['ledger', 'logs'], 100);
    expect((await setSource(svc, id, { type: 'local', config: { path: statePath } })).status).toBe(200);
    const first = await gate(svc, id);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ decision: 'pass', state: { source: 'local', serial: 100 } });

    retype(['logs'], 101);
    const second = await gate(svc, id);
    expect(second.status, JSON.stringify(second.body)).toBe(409);
    expect(second.body.blocking.map((f) => [f.rule, f.address])).toEqual([
      ['capability_dependency_missing', 'aws_s3_bucket.ledger'],
    ]);
    expect(second.body.state).toMatchObject({ source: 'local', serial: 101 });
  }, 120_000);

  it('a backend that holds no state fails the check: 502 drift_check_failed, never a pass', async () => {
    const id = await createApprovedPackage(svc, ledgerDesign(`empty-${kind}`), {
      observedState: stateJson([{ type: 'terraform_data', name: 'ledger' }]),
    });
    expect(
      (await setSource(svc, id, { type: 'http', config: { address: http.address(`nothing-${kind}`) } }))
        .status,
    ).toBe(200);
    const response = await gate(svc, id);
    expect(response.status).toBe(502);
    expect(response.body.error!.code).toBe('drift_check_failed');
    expect(response.body.error!.message).toContain('holds no state');
    expect(response.body).not.toHaveProperty('decision');
  }, 60_000);

  it('a backend that never answers: 504 drift_check_timeout; with fallback: pushed the result says it judged the pushed snapshot', async () => {
    const id = `hang-${kind}`;
    const name = `hang-${kind}`;
    http.hang.add(`/state/${name}`);
    const config = { address: http.address(name), retry_max: 0 };
    // A service of its own, with a short read limit, on a fresh store of this kind.
    const target = await startService({
      apiKey: svc.apiKey,
      env: {
        TFGATE_STATE_BACKENDS: BACKENDS,
        TFGATE_STATE_READ_TIMEOUT: '2s',
        ...(kind === 'postgres' ? { TFGATE_DATABASE_URL: postgres.createDatabase('tfgate_hang') } : {}),
      },
      terraformEnv: serviceEnv(stateDb()),
    });
    await createApprovedPackage(target, ledgerDesign(`hang-${kind}`), {
      observedState: stateJson([{ type: 'terraform_data', name: 'ledger' }]),
    });
    expect((await setSource(target, id, { type: 'http', config })).status).toBe(200);
    const started = Date.now();
    const timedOut = await gate(target, id);
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.error!.code).toBe('drift_check_timeout');
    expect(timedOut.body.error!.message).toContain('time limit');
    expect(Date.now() - started).toBeLessThan(15_000);
    // terraform's process group was killed, and the scratch directory (state values are secrets) removed.
    expect(readingProcesses()).toEqual([]);
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith('tfgate-state-'))).toEqual([]);

    expect((await setSource(target, id, { type: 'http', config, fallback: 'pushed' })).status).toBe(200);
    const fallback = await gate(target, id);
    expect(fallback.status).toBe(200);
    expect(fallback.body.state).toMatchObject({
      source: 'pushed',
      serial: null,
      lineage: null,
      fallback_from: 'http',
      read_error: expect.stringContaining('time limit'),
    });
    await target.stop();
    http.hang.delete(`/state/${name}`);
  }, 120_000);
});

describe('credentials come from the environment, and a refusal is never a pass', () => {
  it('pg with a wrong password: 502 drift_check_failed naming the refusal; no password in the answer or the audit', async () => {
    const wrong = STATE_DB().replace(PG_PASSWORD, 'not-the-password-Q1');
    const svc = await startService({
      env: { TFGATE_STATE_BACKENDS: BACKENDS },
      terraformEnv: serviceEnv(wrong),
    });
    try {
      stateDb();
      const id = await createApprovedPackage(svc, ledgerDesign('pg-refused'), {
        observedState: stateJson([{ type: 'terraform_data', name: 'ledger' }]),
      });
      expect((await setSource(svc, id, { type: 'pg', config: { schema_name: 'refused' } })).status).toBe(200);
      const response = await gate(svc, id);
      expect(response.status).toBe(502);
      expect(response.body.error!.code).toBe('drift_check_failed');
      expect(response.body.error!.message).toMatch(/password authentication failed/);
      expect(response.text).not.toContain('not-the-password-Q1');
      const audit = await api(svc, 'GET', `${CONFORMANCE}/packages/${id}/audit`);
      expect(audit.text).not.toContain('not-the-password-Q1');
      expect(audit.text).not.toContain('gate_decided');
    } finally {
      await svc.stop();
    }
  }, 120_000);

  it('terraform quoting PG_CONN_STR (an invalid port) never puts its password in the answer, the audit or a log', async () => {
    const leaky = `postgres://postgres:leak-me-7Rw@127.0.0.1:badport/terraform_states`;
    const logs: string[] = [];
    const svc = await startService({
      process: true,
      env: {
        TFGATE_STATE_BACKENDS: BACKENDS,
        TFGATE_DRIFT_INTERVAL: '1s',
        PG_CONN_STR: leaky,
        TF_CLI_CONFIG_FILE: cliConfig,
      },
    });
    try {
      const id = await createApprovedPackage(svc, ledgerDesign('pg-leak'));
      expect((await setSource(svc, id, { type: 'pg', config: {} })).status).toBe(200);
      const response = await gate(svc, id);
      expect(response.status).toBe(502);
      // terraform printed: parse "postgres://postgres:leak-me-7Rw@...": invalid port
      expect(response.body.error!.message).toContain('invalid port');
      expect(response.text).not.toContain('leak-me-7Rw');
      // Let the scheduler fail on it too, then read every log line.
      await new Promise((r) => setTimeout(r, 2500));
      logs.push(...svc.logs.map((entry) => JSON.stringify(entry)));
      expect(logs.some((line) => line.includes('scheduled drift check failed'))).toBe(true);
      expect(logs.join('\n')).not.toContain('leak-me-7Rw');
      const audit = await api(svc, 'GET', `${CONFORMANCE}/packages/${id}/audit`);
      expect(audit.text).not.toContain('leak-me-7Rw');
    } finally {
      await svc.stop();
    }
  }, 120_000);

  it('http with no credentials in the environment: the server refuses, the check fails', async () => {
    const env = serviceEnv(STATE_DB());
    delete env.TF_HTTP_USERNAME;
    delete env.TF_HTTP_PASSWORD;
    const svc = await startService({ env: { TFGATE_STATE_BACKENDS: BACKENDS }, terraformEnv: env });
    try {
      const id = await createApprovedPackage(svc, ledgerDesign('http-refused'));
      const config = { address: http.address('http-refused'), retry_max: 0 };
      expect((await setSource(svc, id, { type: 'http', config })).status).toBe(200);
      const response = await gate(svc, id);
      expect(response.status).toBe(502);
      expect(response.body.error!.code).toBe('drift_check_failed');
      expect(response.body.error!.message).toMatch(/requires auth/);
    } finally {
      await svc.stop();
    }
  }, 120_000);
});

describe('OpenTofu and scheduled checks', () => {
  it('tofu reads an http state tofu applied, with template syntax in a setting kept literal (escaped for tofu)', async () => {
    const svc = await startService({
      env: { TFGATE_STATE_BACKENDS: BACKENDS, TFGATE_TERRAFORM_BIN: TOFU_BIN },
      terraformEnv: serviceEnv(STATE_DB()),
    });
    try {
      const id = await createApprovedPackage(svc, ledgerDesign('tofu-http'));
      const address = `${http.address('tofu')}-$\{x}`;
      // tofu itself evaluates templates in backend settings: the configuration tofu applies escapes them.
      const applied = new Reality(
        { http: { address: address.replace(/([$%])\{/g, '$1$1{') } },
        {
          TF_HTTP_USERNAME: HTTP_USER,
          TF_HTTP_PASSWORD: HTTP_PASSWORD,
        },
        TOFU_BIN,
      );
      expect((await setSource(svc, id, { type: 'http', config: { address } })).status).toBe(200);
      await applied.apply(['ledger']);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: terraform template syntax, meant literally.
      expect(http.state('tofu-${x}')).toBeDefined();
      const passed = await gate(svc, id);
      expect(passed.status, JSON.stringify(passed.body)).toBe(200);
      expect(passed.body.state).toMatchObject({ source: 'http', serial: expect.any(Number) });
      await applied.apply([]);
      expect((await gate(svc, id)).status).toBe(409);
    } finally {
      await svc.stop();
    }
  }, 120_000);

  it('a scheduled check reads the backend: a gate without refresh sees an apply after the next interval', async () => {
    const svc = await startService({
      env: { TFGATE_STATE_BACKENDS: BACKENDS, TFGATE_DRIFT_INTERVAL: '1s' },
      terraformEnv: serviceEnv(STATE_DB()),
    });
    try {
      const id = await createApprovedPackage(svc, ledgerDesign('scheduled'));
      const statePath = join(scratch, 'scheduled.tfstate');
      const reality = new Reality({ local: { path: statePath } });
      await reality.apply(['ledger']);
      expect((await setSource(svc, id, { type: 'local', config: { path: statePath } })).status).toBe(200);
      // No observed state was ever pushed: the scheduler claims the package for its state source.
      let last: Gate | undefined;
      for (let i = 0; i < 40 && last?.state?.source !== 'local'; i++) {
        await new Promise((r) => setTimeout(r, 250));
        const pkg = await api<{ last_drift_check_at: string | null }>(
          svc,
          'GET',
          `${CONFORMANCE}/packages/${id}`,
        );
        if (pkg.body.last_drift_check_at) last = (await gate(svc, id, '')).body;
      }
      expect(last).toMatchObject({ decision: 'pass', refreshed: false, state: { source: 'local' } });
      const serial = last!.state!.serial!;
      await reality.apply([]);
      let after: Gate | undefined;
      for (let i = 0; i < 40 && (after?.state?.serial ?? 0) <= serial; i++) {
        await new Promise((r) => setTimeout(r, 250));
        after = (await gate(svc, id, '')).body;
      }
      expect(after).toMatchObject({ decision: 'block', refreshed: false });
    } finally {
      await svc.stop();
    }
  }, 120_000);
});
