// schemathesis (from PyPI, pinned, installed by scripts/setup-tools.sh) against the OpenAPI document a real
// `tfgate serve` serves, on loopback, authenticated with the bootstrap key in the X-Api-Key header: no
// answer is a 5xx, and every status and body is one the document declares. A bounded number of examples
// per operation keeps it under a minute; schemathesis prints the seed, so a failure can be replayed
// (`schemathesis run … --seed N`).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design, STATE_WITH_QUEUE } from './fixtures.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SCHEMATHESIS = join(ROOT, '.tools', 'bin', 'schemathesis');
const CONFIG = join(import.meta.dirname, 'schemathesis.toml');
const MAX_EXAMPLES = 25;

let svc: TestService;
let workDir: string;

beforeAll(async () => {
  if (!existsSync(SCHEMATHESIS)) {
    throw new Error(
      `schemathesis is not installed at ${SCHEMATHESIS}: run \`bash scripts/setup-tools.sh schemathesis\` (.ci/run does)`,
    );
  }
  // No state backend allowed: PUT …/state-source is still fuzzed (every body is checked, then refused with a
  // 400), but no gate reads a backend that random input chose, whose failed read is a documented 502.
  // Address limits off: schemathesis sends hundreds of wrong keys on purpose, from the one address every
  // call comes from, which would lock that address out of the routes it must reach (key-guessing.test.ts).
  svc = await startService({
    process: true,
    env: { TFGATE_STATE_BACKENDS: 'none', TFGATE_ADDRESS_LIMITS: 'off' },
  });
  // The packages the config's dictionary names: approved with observed state, so the gate decides; approved
  // without it, and never approved, so the gate's and the evaluation's 409 errors are checked against the
  // document too.
  await createApprovedPackage(svc, design('seeded'), { observedState: STATE_WITH_QUEUE });
  await createApprovedPackage(svc, design('stateless'));
  const proposed = await api(svc, 'PUT', `${CONFORMANCE}/packages/proposed`, {
    body: design('proposed'),
    headers: { 'Content-Type': 'application/yaml' },
  });
  expect(proposed.status).toBe(201);
  workDir = mkdtempSync(join(tmpdir(), 'tfgate-schemathesis-'));
});

afterAll(async () => {
  await svc?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

it('finds no 5xx and no response outside the OpenAPI document', { timeout: 240_000 }, async () => {
  const run = await execa(
    SCHEMATHESIS,
    [
      '--config-file',
      CONFIG,
      'run',
      `${svc.baseUrl}${CONFORMANCE}/openapi.json`,
      '--checks',
      'not_a_server_error,status_code_conformance,response_schema_conformance',
      '--max-examples',
      String(MAX_EXAMPLES),
      '--generation-database',
      'none',
      '--workers',
      '1',
      '--no-color',
    ],
    {
      cwd: workDir,
      // The key travels in the environment, expanded by the config file; never on a command line.
      env: { TFGATE_SCHEMATHESIS_API_KEY: svc.apiKey, PYTHONDONTWRITEBYTECODE: '1' },
      reject: false,
      all: true,
      timeout: 220_000,
    },
  );
  const output = run.all ?? '';
  expect(run.exitCode, output.slice(-8000)).toBe(0);
  // The run really exercised the API: many cases, and the seeded package's routes answered 200.
  const generated = Number(/(\d+) generated/.exec(output)?.[1] ?? 0);
  expect(generated, output.slice(-2000)).toBeGreaterThan(300);
  const requests = svc.logs.filter((entry) => entry.msg === 'request');
  const answered = (route: string) => requests.filter((e) => e.route === route && e.status === 200).length;
  for (const route of ['gate', 'getBundle', 'getPackage', 'listFindings', 'listAudit']) {
    expect(answered(route), `${route} never answered 200`).toBeGreaterThan(0);
  }
  // …and the gate's 409 errors (not approved, no observed state) were checked against the document too.
  const gateErrors = requests.filter(
    (e) => e.route === 'gate' && e.status === 409 && !String(e.path).includes('/packages/seeded/'),
  );
  expect(gateErrors.length, 'the gate never answered a 409 error').toBeGreaterThan(0);
  expect(requests.filter((e) => Number(e.status) >= 500)).toEqual([]);
});
