// Plan evaluation over HTTP, the signed bundle and the public key, and cross-route equality: the service's
// evaluation equals the bundle route's (the bundle downloaded from the service, verified, run locally).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSource } from '../../src/plan/index.js';
import { BundleEvaluator, verifyBundle } from '../../src/policy/bundle/index.js';
import { schemas } from '../../src/service/index.js';
import { BAD_INPUTS, loadCorpus } from '../fixtures/corpus.js';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design, PLAN_BLOCKED, PLAN_CLEAN, STATE_WITH_QUEUE } from './fixtures.js';

type Evaluation = {
  decision: string;
  findings: Array<{ rule: string; address: string; severity: string; id: string }>;
  counts: Record<string, number>;
  error?: { code: string };
};

let svc: TestService;
let dir: string;
beforeAll(async () => {
  svc = await startService();
  dir = await mkdtemp(join(tmpdir(), 'tfgate-svc-eval-'));
});
afterAll(async () => {
  await svc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const evaluate = (id: string, body: string | Buffer, query = '', headers?: Record<string, string>) =>
  api<Evaluation>(svc, 'POST', `${CONFORMANCE}/packages/${id}/evaluate/terraform${query}`, { body, headers });

describe('POST /evaluate/terraform', () => {
  it('returns findings and counts; 200 whatever the decision, 409 evaluation_blocked with fail_status=true', async () => {
    const id = await createApprovedPackage(svc, design('eval'));
    const res = await evaluate(id, PLAN_BLOCKED);
    expect(res.status).toBe(200);
    expect(schemas.evaluationResultSchema.parse(res.body)).toBeTruthy();
    expect(res.body.decision).toBe('block');
    expect(res.body.findings.map((f) => [f.rule, f.address, f.severity]).sort()).toEqual([
      ['capability_dependency_destroyed', 'aws_db_instance.ledger', 'critical'],
      ['unsanctioned_creation', 'aws_sqs_queue.extra', 'high'],
    ]);
    expect(res.body.counts).toMatchObject({
      resource_changes: 3,
      creations: 1,
      destructions: 1,
      findings: 2,
    });
    expect(res.text).not.toContain('hunter2-canary');

    const blocked = await evaluate(id, PLAN_BLOCKED, '?fail_status=true');
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toMatchObject({ code: 'evaluation_blocked' });
    expect(blocked.body.findings).toHaveLength(2);
    const critical = await evaluate(id, PLAN_BLOCKED, '?fail_status=true&min_severity=critical');
    expect(critical.status).toBe(409);
    expect((await evaluate(id, PLAN_CLEAN, '?fail_status=true')).body).toMatchObject({ decision: 'pass' });
    const badQuery = await evaluate(id, PLAN_CLEAN, '?min_severity=severe');
    expect(badQuery.status).toBe(400);
    expect(badQuery.body).toMatchObject({ error: { code: 'invalid_parameter' } });
  });

  it('415 unsupported_media_type without Content-Type: application/json', async () => {
    const id = await createApprovedPackage(svc, design('eval415'));
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await evaluate(id, PLAN_CLEAN, '', { 'Content-Type': type });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ error: { code: 'unsupported_media_type' } });
    }
    expect(
      (await evaluate(id, PLAN_CLEAN, '', { 'Content-Type': 'application/json; charset=utf-8' })).status,
    ).toBe(200);
  });

  it('400 invalid_plan for each bad input, saying where', async () => {
    const id = await createApprovedPackage(svc, design('evalbad'));
    for (const [what, path] of Object.entries(BAD_INPUTS)) {
      const res = await evaluate(id, await readFile(path));
      expect(res.status, what).toBe(400);
      expect(res.body, what).toMatchObject({ error: { code: 'invalid_plan' } });
      const error = (res.body as unknown as { error: { message: string; details?: Record<string, unknown> } })
        .error;
      expect(`${error.message} ${JSON.stringify(error.details ?? {})}`, what).toMatch(
        /offset|byte|\$|path|line|empty|end/i,
      );
    }
  });
});

describe('bundle and public key', () => {
  it('serves a signed bundle with ETag = revision, 304 on If-None-Match, verified by our verifier and the real opa', async () => {
    const id = await createApprovedPackage(svc, design('bundled'));
    const res = await fetch(`${svc.baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
      headers: { 'X-Api-Key': svc.apiKey },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    const etag = res.headers.get('etag')!;
    const revision = res.headers.get('x-bundle-revision')!;
    expect(etag).toBe(`"${revision}"`);
    const bytes = Buffer.from(await res.arrayBuffer());
    const pem = (
      await api(svc, 'GET', `${CONFORMANCE}/public-key`, { headers: { Accept: 'application/x-pem-file' } })
    ).text;
    const verified = await verifyBundle(bytes, { publicKeyPem: pem, expectedPackageId: id });
    expect(verified.revision).toBe(revision);

    for (const inm of [etag, revision, `W/${etag}`, `"other", ${etag}`]) {
      const again = await fetch(`${svc.baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
        headers: { 'X-Api-Key': svc.apiKey, 'If-None-Match': inm },
      });
      expect(again.status, inm).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
    }
    const stale = await fetch(`${svc.baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
      headers: { 'X-Api-Key': svc.apiKey, 'If-None-Match': '"old"' },
    });
    expect(stale.status).toBe(200);

    const bundlePath = join(dir, 'bundle.tar.gz');
    const keyPath = join(dir, 'public.pem');
    await writeFile(bundlePath, bytes);
    await writeFile(keyPath, pem);
    const opa = await execa(
      'opa',
      [
        'build',
        '-b',
        bundlePath,
        '--verification-key',
        keyPath,
        '--scope',
        id,
        '-o',
        join(dir, 'out.tar.gz'),
      ],
      { reject: false, all: true },
    );
    expect(opa.exitCode, opa.all).toBe(0);

    // A new approved design is a new revision.
    await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: `${design(id)}  aws_s3_bucket: object_storage\n`,
      headers: { 'Content-Type': 'application/yaml' },
    });
    await api(svc, 'POST', `${CONFORMANCE}/packages/${id}/approve`);
    const changed = await fetch(`${svc.baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
      headers: { 'X-Api-Key': svc.apiKey, 'If-None-Match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });
});

describe('cross-route equality across the corpus', () => {
  const corpus = loadCorpus();
  it.each(corpus.map((s) => [s.name, s] as const))(
    '%s: the service and the bundle route agree',
    async (_name, scenario) => {
      const designText = await readFile(scenario.designPath, 'utf8');
      const id = await createApprovedPackage(
        svc,
        designText,
        scenario.statePath ? { observedState: await readFile(scenario.statePath, 'utf8') } : {},
      );
      const remote = await evaluate(id, await readFile(scenario.planPath));
      expect(remote.status).toBe(200);

      const res = await fetch(`${svc.baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
        headers: { 'X-Api-Key': svc.apiKey },
      });
      const bundlePath = join(dir, `${scenario.name}.tar.gz`);
      await writeFile(bundlePath, Buffer.from(await res.arrayBuffer()));
      const keyPath = join(dir, 'key.pem');
      await writeFile(
        keyPath,
        (
          await api(svc, 'GET', `${CONFORMANCE}/public-key`, {
            headers: { Accept: 'application/x-pem-file' },
          })
        ).text,
      );
      const local = await (await BundleEvaluator.open(bundlePath, { publicKeyPath: keyPath })).evaluate(
        fileSource(scenario.planPath),
        'low',
      );
      expect(remote.body).toEqual(local);

      const expected = scenario.expected.findings.map((f) => [f.rule, f.address]).sort();
      expect(remote.body.findings.map((f) => [f.rule, f.address]).sort()).toEqual(expected);
      expect(remote.body.decision).toBe(scenario.expected.decisions.low);

      if (scenario.expected.drift) {
        const gate = await api<{ blocking: Array<{ rule: string; address: string }> }>(
          svc,
          'POST',
          `${CONFORMANCE}/packages/${id}/gate`,
        );
        expect(gate.body.blocking.map((f) => [f.rule, f.address]).sort()).toEqual(
          scenario.expected.drift.findings.map((f) => [f.rule, f.address]).sort(),
        );
      }
    },
  );
});

describe('limits', () => {
  let limited: TestService;
  beforeAll(async () => {
    limited = await startService({ env: { TFGATE_MAX_BODY: '4KiB', TFGATE_DRIFT_CHECK_TIMEOUT: '0' } });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('413 payload_too_large over the body limit, with or without Content-Length', async () => {
    const id = await createApprovedPackage(limited, design('big'));
    const big = JSON.stringify({ format_version: '1.2', resource_changes: [], padding: 'x'.repeat(10_000) });
    const res = await api(limited, 'POST', `${CONFORMANCE}/packages/${id}/evaluate/terraform`, { body: big });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(JSON.stringify(res.body)).toContain('raise it with --max-body');
    // A design is not an upload: its fixed limit names no setting to raise.
    const design413 = await api(limited, 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(design413.status).toBe(413);
    expect(JSON.stringify(design413.body)).not.toContain('--max-body');
    // Chunked: the limit is enforced while streaming.
    const chunks = async function* () {
      for (let i = 0; i < 10; i++) yield Buffer.from(big.slice(i * 1000, (i + 1) * 1000));
      yield Buffer.from(big.slice(10_000));
    };
    const streamed = await fetch(`${limited.baseUrl}${CONFORMANCE}/packages/${id}/evaluate/terraform`, {
      method: 'POST',
      headers: { 'X-Api-Key': limited.apiKey, 'Content-Type': 'application/json' },
      body: ReadableStream.from(chunks()),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    // The service still answers afterwards.
    expect(
      (await api(limited, 'POST', `${CONFORMANCE}/packages/${id}/evaluate/terraform`, { body: PLAN_CLEAN }))
        .status,
    ).toBe(200);
  });

  it('504 drift_check_timeout when a drift check runs past its limit: never a silent pass', async () => {
    const id = await createApprovedPackage(limited, design('slow'), { observedState: STATE_WITH_QUEUE });
    for (const query of ['', '?refresh=true', '?fail_status=true']) {
      const res = await api(limited, 'POST', `${CONFORMANCE}/packages/${id}/gate${query}`);
      expect(res.status, query).toBe(504);
      expect(res.body, query).toMatchObject({ error: { code: 'drift_check_timeout' } });
    }
    // The timed-out check left nothing behind.
    expect(
      (await api<{ findings: unknown[] }>(limited, 'GET', `${CONFORMANCE}/packages/${id}/findings`)).body
        .findings,
    ).toEqual([]);
  });
});
