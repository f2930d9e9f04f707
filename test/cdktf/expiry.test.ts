// CDKTF / CDK Terrain acknowledgements with an expiry (issue 12), with real synths of both toolkits: one that
// holds is recorded with its expiry; once expired, synth fails on the finding again and says when it expired.
import { Construct } from 'constructs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyConformance, ConformanceAspect } from '../../src/cdktf/index.js';
import {
  cloudResource,
  readStackJson,
  TEST_DESIGN,
  type TempDir,
  TOOLKITS,
  type Toolkit,
  tempDir,
  thrown,
  warningsOn,
} from './helpers.js';

function appWithQueue(tk: Toolkit, outdir: string) {
  const Queue = cloudResource(tk, 'aws_sqs_queue');
  const app = new tk.App({ outdir });
  const stack = new tk.TerraformStack(app, 'main');
  new tk.LocalBackend(stack, { path: 'terraform.tfstate' });
  new tk.DataResource(stack, 'ledger', { input: { v: 1 } });
  const queue = new Queue(new Construct(stack, 'audit'), 'queue');
  return { app, queue };
}

let aspect: ConformanceAspect;
beforeAll(async () => {
  aspect = await ConformanceAspect.fromDesign(TEST_DESIGN);
});

let out: TempDir;
afterEach(() => out?.cleanup());

describe.each(TOOLKITS)('acknowledgements with an expiry, %s', (toolkitName, tk) => {
  it('holds before its expiry: a warning naming the expiry, recorded with it', () => {
    out = tempDir(`${toolkitName}-ack-expiry`);
    const { app, queue } = appWithQueue(tk, out.dir);
    const expiresAt = new Date(Date.now() + 86_400_000);
    ConformanceAspect.acknowledge(queue, { rule: 'unsanctioned_creation', reason: 'OPS-42', expiresAt });
    applyConformance(app, aspect);
    app.synth();
    expect(warningsOn(queue)[0]).toContain(`acknowledged (reason: OPS-42; until ${expiresAt.toISOString()})`);
    const record = readStackJson(out.dir, 'main')['//']?.tfgate?.['cdktf-test'];
    expect(record?.acknowledged).toEqual([
      expect.objectContaining({
        reason: 'OPS-42',
        expires_at: expiresAt.toISOString(),
        outcome: 'acknowledged',
      }),
    ]);
  });

  it('after its expiry synth fails on the finding again and says when the acknowledgement expired', () => {
    out = tempDir(`${toolkitName}-ack-expired`);
    const { app, queue } = appWithQueue(tk, out.dir);
    ConformanceAspect.acknowledge(queue, {
      rule: 'unsanctioned_creation',
      reason: 'OPS-42',
      expiresAt: '2026-01-01T00:00:00+01:00',
    });
    applyConformance(app, aspect);
    const message = thrown(() => app.synth()).message;
    expect(message).toContain('[main/audit/queue]');
    expect(message).toContain('Its acknowledgement (reason: OPS-42) expired at 2025-12-31T23:00:00.000Z');
  });

  it('refuses an expiry that is not RFC 3339 with a time zone', () => {
    out = tempDir(`${toolkitName}-ack-expiry-bad`);
    const { queue } = appWithQueue(tk, out.dir);
    expect(() =>
      ConformanceAspect.acknowledge(queue, {
        rule: 'unsanctioned_creation',
        reason: 'x',
        expiresAt: '2026-12-31',
      }),
    ).toThrow(/expiresAt: must be an RFC 3339 date-time with a time zone/);
    expect(() =>
      ConformanceAspect.acknowledge(queue, {
        rule: 'unsanctioned_creation',
        reason: 'x',
        expiresAt: new Date(Number.NaN),
      }),
    ).toThrow(/expiresAt: must be/);
  });
});
