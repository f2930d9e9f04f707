// The documented pipeline usage with the real curl: `curl -f` fails the step when the gate blocks, and
// passes when advisory (no fail_status, no -f semantics needed) or when the finding is acknowledged.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design, STATE_WITH_QUEUE } from './fixtures.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

/** curl with the key in a config read from stdin, so it is never on a command line. */
function curl(args: string[]) {
  return execa('curl', ['--silent', '--show-error', '-K', '-', ...args], {
    input: `header = "X-Api-Key: ${svc.apiKey}"\n`,
    reject: false,
  });
}

describe('curl -f in a release job', () => {
  it('fails when blocked, passes when advisory, and passes once the finding is acknowledged', async () => {
    const id = await createApprovedPackage(svc, design('curl'), { observedState: STATE_WITH_QUEUE });
    const gate = `${svc.baseUrl}${CONFORMANCE}/packages/${id}/gate`;

    const blocked = await curl(['-f', '-X', 'POST', `${gate}?fail_status=true&min_severity=high`]);
    expect(blocked.exitCode).toBe(22);
    expect(blocked.stderr).toContain('409');

    const advisory = await curl(['-X', 'POST', `${gate}?min_severity=high`]);
    expect(advisory.exitCode).toBe(0);
    expect(JSON.parse(advisory.stdout)).toMatchObject({ decision: 'block' });
    // Advisory even with -f: without fail_status the status is 200.
    expect((await curl(['-f', '-X', 'POST', `${gate}?min_severity=high`])).exitCode).toBe(0);

    const finding = JSON.parse(advisory.stdout).blocking[0] as { id: string };
    const ack = await api(svc, 'POST', `${CONFORMANCE}/packages/${id}/findings/${finding.id}/acknowledge`, {
      body: { reason: 'queue approved by architecture review #42' },
    });
    expect(ack.status).toBe(200);

    const passed = await curl(['-f', '-X', 'POST', `${gate}?fail_status=true&min_severity=high`]);
    expect(passed.exitCode).toBe(0);
    expect(JSON.parse(passed.stdout)).toMatchObject({ decision: 'pass', counts: { acknowledged: 1 } });
  });

  it('fails on a missing key too (401), so a misconfigured pipeline never passes', async () => {
    const id = await createApprovedPackage(svc, design('curl-auth'), { observedState: STATE_WITH_QUEUE });
    const res = await execa(
      'curl',
      ['--silent', '-f', '-X', 'POST', `${svc.baseUrl}${CONFORMANCE}/packages/${id}/gate?fail_status=true`],
      { reject: false },
    );
    expect(res.exitCode).toBe(22);
  });
});
