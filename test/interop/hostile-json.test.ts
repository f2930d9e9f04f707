// Issue 8, defect 1 on every route: plans and states written so that JSON.parse and OPA read them as usual
// but a reader matching raw key bytes did not (escaped keys, decoys before duplicates). Each must be decided
// as its plain form is: by `tfgate check --plan-json` on the bundle route and on the service route, by the
// service's evaluation and state upload, and by the real `opa eval` on the same bytes. What JSON.parse
// refuses (a raw control character in a value nothing reads) is refused everywhere, opa included.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDesign } from '../../src/design/index.js';
import { bufferSource } from '../../src/plan/index.js';
import { buildBundle } from '../../src/policy/bundle/build.js';
import { BundleEvaluator } from '../../src/policy/bundle/evaluator.js';
import { verifyBundle } from '../../src/policy/bundle/verify.js';
import { scenario } from '../fixtures/corpus.js';
import { buildCli, runCli } from '../helpers/cli.js';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { escapeEvery, escapeKey, hiddenChangesPlan, hiddenModulesState } from '../plan/hostile.js';
import { parseJson } from '../plan/json-reference.js';
import { generateTestKeys } from '../policy/bundle-fixtures.js';

type Plan = { resource_changes: unknown[] };
const destroy = scenario('destroy');
const PLAN_QUERY = 'data.tfgate.conformance.plan';
const PLAN = JSON.stringify(JSON.parse(readFileSync(destroy.planPath, 'utf8')));
const STATE = JSON.stringify(
  JSON.parse(readFileSync(new URL('../fixtures/states/destroy.json', import.meta.url), 'utf8')),
);

/** Hostile forms of the destroy plan: every one deletes what the ledger capability depends on. */
const HOSTILE_PLANS: Record<string, string> = {
  'resource_changes written with escapes only': escapeKey(PLAN, 'resource_changes'),
  'a no-op decoy before each action list': PLAN.replaceAll(
    '"actions":["delete"]',
    '"actions":["no-op"],"actions":["delete"]',
  ),
  'every kept key escaped': ['format_version', 'address', 'mode', 'type', 'change', 'actions'].reduce(
    escapeKey,
    PLAN,
  ),
};
/**
 * A second resource_changes key: JSON.parse keeps the last, terraform never writes two. The routes evaluate
 * the changes as they are read, so they refuse it (no decision, never a pass) instead of guessing.
 */
const DUPLICATE_CHANGES_PLANS: Record<string, string> = {
  'an empty decoy, then the escaped resource_changes': hiddenChangesPlan(PLAN),
  'the changes, then an empty resource_changes': PLAN.replace(/\}$/, ',"resource_changes":[]}'),
};
/** JSON.parse refuses it (a raw newline inside a skipped value); the reader used to skip it. */
const BROKEN_PLAN = PLAN.replace('"before":{', '"before":{"note":"line\nbreak",');

let dir: string;
let svc: TestService;
let bundlePath: string;
let publicKeyPath: string;
let evaluator: BundleEvaluator;
let packageId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-hostile-json-'));
  const keys = generateTestKeys();
  const design = await loadDesign(destroy.designPath);
  packageId = design.package_id;
  const bytes = await buildBundle({ design, signingKeyPem: keys.privatePem });
  bundlePath = join(dir, 'bundle.tar.gz');
  publicKeyPath = join(dir, 'public.pem');
  await Promise.all([writeFile(bundlePath, bytes), writeFile(publicKeyPath, keys.publicPem), buildCli()]);
  evaluator = new BundleEvaluator(await verifyBundle(bytes, { publicKeyPem: keys.publicPem }), 'bundle');
  svc = await startService();
  await createApprovedPackage(svc, readFileSync(destroy.designPath, 'utf8'));
}, 180_000);

afterAll(async () => {
  await svc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const findingKeys = (findings: Array<{ rule: string; address: string }>) =>
  findings.map((f) => `${f.rule} ${f.address}`).sort();
const EXPECTED = findingKeys(destroy.expected.findings);

async function planFile(name: string, text: string): Promise<string> {
  const path = join(dir, `${name.replaceAll(/\W+/g, '-')}.json`);
  await writeFile(path, text);
  return path;
}

function check(path: string, route: 'bundle' | 'service') {
  const args = ['check', '--plan-json', path, '--format', 'json'];
  if (route === 'bundle') return runCli([...args, '--bundle', bundlePath, '--public-key', publicKeyPath]);
  return runCli([...args, '--package', packageId], {
    env: { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey },
  });
}

describe('a hostile plan blocks as its plain form does', () => {
  it.each(Object.entries(HOSTILE_PLANS))('%s: JSON.parse reads the same changes', (_, text) => {
    expect((parseJson(text) as Plan).resource_changes).toEqual((JSON.parse(PLAN) as Plan).resource_changes);
  });

  for (const route of ['bundle', 'service'] as const) {
    it(`tfgate check --plan-json, ${route} route: exit 3 with the capability findings`, async () => {
      for (const [name, text] of Object.entries(HOSTILE_PLANS)) {
        const result = await check(await planFile(name, text), route);
        expect(result.exitCode, `${name}: ${result.stderr}`).toBe(3);
        const body = JSON.parse(result.stdout);
        expect(findingKeys(body.findings), name).toEqual(EXPECTED);
        expect(body.counts, name).toEqual(destroy.expected.counts);
      }
      for (const [name, text] of Object.entries(DUPLICATE_CHANGES_PLANS)) {
        const refused = await check(await planFile(name, text), route);
        expect(refused.exitCode, `${name}: ${refused.stderr}`).toBe(4);
        expect(refused.stderr, name).toContain('a second "resource_changes" key');
      }
      const broken = await check(await planFile('broken', BROKEN_PLAN), route);
      expect(broken.exitCode).toBe(4);
      expect(broken.stderr).toContain('control character byte 0x0a inside a string');
    });
  }

  it('POST /evaluate/terraform: blocked (409 with fail_status); 400 invalid_plan with offset and path, and on a second resource_changes', async () => {
    const path = `${CONFORMANCE}/packages/${packageId}/evaluate/terraform?fail_status=true`;
    for (const [name, text] of Object.entries(HOSTILE_PLANS)) {
      const res = await api<{ decision: string; findings: Array<{ rule: string; address: string }> }>(
        svc,
        'POST',
        path,
        { body: text },
      );
      expect(res.status, name).toBe(409);
      expect(res.body.decision).toBe('block');
      expect(findingKeys(res.body.findings), name).toEqual(EXPECTED);
    }
    for (const [name, text] of Object.entries(DUPLICATE_CHANGES_PLANS)) {
      const res = await api<{ error: { code: string } }>(svc, 'POST', path, { body: text });
      expect(res.status, name).toBe(400);
      expect(res.body.error.code, name).toBe('invalid_plan');
    }
    const broken = await api<{ error: { code: string; message: string; details: Record<string, unknown> } }>(
      svc,
      'POST',
      path,
      { body: BROKEN_PLAN },
    );
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_plan');
    expect(broken.body.error.details).toMatchObject({
      offset: Buffer.byteLength(BROKEN_PLAN.slice(0, BROKEN_PLAN.indexOf('\n'))),
      path: '$.resource_changes[0].change.before',
    });
  });

  it('the real opa eval decides the same on the same bytes; a second resource_changes is refused', async () => {
    for (const [name, text] of Object.entries(HOSTILE_PLANS)) {
      const input = await planFile(name, text);
      const opa = await execa('opa', [
        'eval',
        '-f',
        'json',
        `--bundle=${bundlePath}`,
        `--input=${input}`,
        PLAN_QUERY,
      ]);
      const decided = JSON.parse(opa.stdout).result[0].expressions[0].value;
      const ours = await evaluator.evaluate(bufferSource(text), 'low');
      expect(findingKeys(decided.findings), name).toEqual(findingKeys(ours.findings));
      expect(decided.counts, name).toEqual(ours.counts);
      expect(ours.decision).toBe('block');
    }
    // opa keeps the last duplicate (the second plan passes there); tfgate decides nothing: the fail-closed side.
    for (const [name, text] of Object.entries(DUPLICATE_CHANGES_PLANS)) {
      const opa = await execa('opa', [
        'eval',
        '-f',
        'json',
        `--bundle=${bundlePath}`,
        `--input=${await planFile(name, text)}`,
        PLAN_QUERY,
      ]);
      expect(JSON.parse(opa.stdout).result[0].expressions[0].value.counts.resource_changes, name).toBe(
        name.startsWith('an empty decoy') ? destroy.expected.counts.resource_changes : 0,
      );
      await expect(evaluator.evaluate(bufferSource(text), 'low'), name).rejects.toMatchObject({
        exitCode: 4,
      });
    }
  });

  it('what is not JSON is refused, though opa eval reads it as YAML (and drops a BOM): never a pass', async () => {
    // opa's input loader (util.Unmarshal) falls back to YAML for bytes that are not valid JSON and strips a
    // UTF-8 BOM. tfgate reads JSON only: no decision (exit 4), the fail-closed side of the difference.
    for (const [name, text] of Object.entries({ broken: BROKEN_PLAN, bom: `\ufeff${PLAN}` })) {
      const opa = await execa('opa', [
        'eval',
        '-f',
        'raw',
        '-i',
        await planFile(name, text),
        'count(input.resource_changes)',
      ]);
      expect(opa.stdout.trim(), name).toBe('4');
      expect(() => JSON.parse(text), name).toThrow();
      await expect(evaluator.evaluate(bufferSource(text), 'low'), name).rejects.toMatchObject({
        exitCode: 4,
      });
    }
  });
});

describe('a hostile state is read as its plain form is', () => {
  it('PUT /observed-state: the same resources and drift findings; 400 invalid_state when JSON.parse refuses', async () => {
    const put = (id: string, body: string) =>
      api<{ resources: number; error?: { code: string } }>(
        svc,
        'PUT',
        `${CONFORMANCE}/packages/${id}/observed-state`,
        {
          body,
        },
      );
    const drift = async (id: string) => {
      expect((await api(svc, 'POST', `${CONFORMANCE}/packages/${id}/drift-checks`)).status).toBe(200);
      const open = await api<{ findings: Array<{ rule: string; address: string }> }>(
        svc,
        'GET',
        `${CONFORMANCE}/packages/${id}/findings?status=open`,
      );
      return findingKeys(open.body.findings);
    };
    const designText = readFileSync(destroy.designPath, 'utf8');
    const plainId = await createApprovedPackage(svc, designText.replace(packageId, 'state-plain'));
    const hiddenId = await createApprovedPackage(svc, designText.replace(packageId, 'state-hidden'));
    const plain = await put(plainId, STATE);
    expect(plain.status).toBe(200);
    const hostile = escapeKey(hiddenModulesState(STATE), 'resources').replace(
      '"format_version"',
      `"${escapeEvery('terraform_version')}":"0","format_version"`,
    );
    const hidden = await put(hiddenId, hostile);
    expect(hidden.status).toBe(200);
    expect(hidden.body.resources).toBe(plain.body.resources);
    expect(hidden.body.resources).toBe(4);
    expect(await drift(hiddenId)).toEqual(await drift(plainId));
    const broken = await put(hiddenId, STATE.replace('"values":{"id"', '"values":{"\u0001":1,"id"'));
    expect(broken.status).toBe(400);
    expect(broken.body.error?.code).toBe('invalid_state');
  });
});
