// The aspect with real synths of both toolkits (cdktf 0.21 and cdktn): blocked, passing, advisory,
// acknowledged, destroyed, the per-stack trap, and the audit record in the synthesized JSON.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Construct } from 'constructs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyConformance, ConformanceAspect } from '../../src/cdktf/index.js';
import type { UsageError } from '../../src/errors/index.js';
import { TerraformWorkspace } from '../helpers/terraform.js';
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

interface AppOptions {
  ledger?: boolean;
  queue?: boolean;
  skipValidation?: boolean;
}

function buildApp(tk: Toolkit, outdir: string, options: AppOptions = {}) {
  const Bucket = cloudResource(tk, 'aws_s3_bucket');
  const Queue = cloudResource(tk, 'aws_sqs_queue');
  const app = new tk.App({ outdir, skipValidation: options.skipValidation ?? false });
  const stack = new tk.TerraformStack(app, 'main');
  new tk.LocalBackend(stack, { path: 'terraform.tfstate' });
  const ledger =
    options.ledger === false ? undefined : new tk.DataResource(stack, 'ledger', { input: { v: 1 } });
  const storage = new Construct(stack, 'storage');
  new tk.DataResource(storage, 'index', { input: { v: 2 } });
  const bucket = new Bucket(storage, 'bucket');
  const queue = options.queue ? new Queue(new Construct(stack, 'audit'), 'queue') : undefined;
  return { app, stack, ledger, bucket, queue };
}

let aspect: ConformanceAspect;
let advisory: ConformanceAspect;
let criticalOnly: ConformanceAspect;
/** Sanctions no generic_data: every terraform_data is a finding, so the findings list the aspect's addresses. */
let flagAll: ConformanceAspect;
beforeAll(async () => {
  flagAll = await ConformanceAspect.fromDesign(
    { ...TEST_DESIGN, sanctioned_kinds: ['object_storage'], capabilities: [] },
    { advisory: true },
  );
  aspect = await ConformanceAspect.fromDesign(TEST_DESIGN);
  advisory = await ConformanceAspect.fromDesign(TEST_DESIGN, { advisory: true });
  criticalOnly = await ConformanceAspect.fromDesign(TEST_DESIGN, { minSeverity: 'critical' });
});

let out: TempDir;
afterEach(() => out?.cleanup());

describe.each(TOOLKITS)('ConformanceAspect with %s', (toolkitName, tk) => {
  it('passes a stack the design sanctions and records the check in cdk.tf.json', () => {
    out = tempDir(`${toolkitName}-pass`);
    const { app, stack } = buildApp(tk, out.dir);
    // A data source (mode data) is read, not created: it is not evaluated.
    new tk.DataTerraformRemoteStateLocal(stack, 'upstream', { path: 'upstream.tfstate' });
    applyConformance(app, aspect);
    app.synth();

    expect(readStackJson(out.dir, 'main')).toHaveProperty(['data', 'terraform_remote_state']);
    const record = readStackJson(out.dir, 'main')['//']?.tfgate?.['cdktf-test'];
    expect(record).toMatchObject({ package_id: 'cdktf-test', mode: 'enforce', signed: false });
    expect(record?.counts).toMatchObject({ creations: 3, destructions: 0, findings: 0 });
    expect(record?.acknowledged).toEqual([]);
    expect(aspect.conformanceOf(stack)?.findings).toEqual([]);
  });

  it('fails synth on an unsanctioned creation, naming construct path, type, kind, rule, severity', () => {
    out = tempDir(`${toolkitName}-block`);
    const { app, queue } = buildApp(tk, out.dir, { queue: true });
    applyConformance(app, aspect);
    const error = thrown(() => app.synth());

    const address = `aws_sqs_queue.${queue!.friendlyUniqueId}`;
    expect(error.message).toContain('[main/audit/queue]');
    expect(error.message).toContain('unsanctioned_creation (high)');
    expect(error.message).toContain(`aws_sqs_queue ${address}`);
    expect(error.message).toContain('is of kind queue');
    expect(error.message).toContain('sanctions only generic_data, object_storage');
    // Only the queue is named: the sanctioned resources are not.
    expect(error.message).not.toContain('aws_s3_bucket');
    // A blocked synth writes nothing.
    expect(existsSync(join(out.dir, 'stacks', 'main', 'cdk.tf.json'))).toBe(false);
  });

  it('in advisory mode reports a warning on the construct and synthesizes', () => {
    out = tempDir(`${toolkitName}-advisory`);
    const { app, queue } = buildApp(tk, out.dir, { queue: true });
    applyConformance(app, advisory);
    app.synth();

    const warnings = warningsOn(queue!);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^\[tfgate\] ADVISORY MODE, not blocking: unsanctioned_creation \(high\)/);
    const record = readStackJson(out.dir, 'main')['//']?.tfgate?.['cdktf-test'];
    expect(record?.mode).toBe('advisory');
    expect(record?.warnings).toEqual([
      expect.objectContaining({
        rule: 'unsanctioned_creation',
        construct_path: 'main/audit/queue',
        kind: 'queue',
        outcome: 'advisory',
      }),
    ]);
  });

  it('lets an acknowledged finding through, warns, and records the reason for audit', () => {
    out = tempDir(`${toolkitName}-ack`);
    const { app, queue } = buildApp(tk, out.dir, { queue: true });
    ConformanceAspect.acknowledge(queue!, {
      rule: 'unsanctioned_creation',
      reason: 'OPS-42: audit queue until March',
    });
    applyConformance(app, aspect);
    app.synth();

    expect(warningsOn(queue!)[0]).toContain('acknowledged (reason: OPS-42: audit queue until March)');
    const record = readStackJson(out.dir, 'main')['//']?.tfgate?.['cdktf-test'];
    expect(record?.acknowledged).toEqual([
      expect.objectContaining({
        rule: 'unsanctioned_creation',
        severity: 'high',
        address: `aws_sqs_queue.${queue!.friendlyUniqueId}`,
        construct_path: 'main/audit/queue',
        reason: 'OPS-42: audit queue until March',
        outcome: 'acknowledged',
      }),
    ]);
  });

  it('an acknowledgement covers only its rule and its subtree', () => {
    out = tempDir(`${toolkitName}-ack-scope`);
    const { app, stack } = buildApp(tk, out.dir, { queue: true });
    // On a sibling subtree: does not cover main/audit/queue.
    ConformanceAspect.acknowledge(stack.node.findChild('storage'), {
      rule: 'unsanctioned_creation',
      reason: 'storage only',
    });
    // On the right construct but for another rule.
    ConformanceAspect.acknowledge(stack.node.findChild('audit'), {
      rule: 'capability_dependency_destroyed',
      reason: 'wrong rule',
    });
    applyConformance(app, aspect);
    expect(thrown(() => app.synth()).message).toContain('[main/audit/queue]');
  });

  it('refuses an acknowledgement without a reason, or for an unknown rule', () => {
    out = tempDir(`${toolkitName}-ack-bad`);
    const { queue } = buildApp(tk, out.dir, { queue: true });
    expect(() =>
      ConformanceAspect.acknowledge(queue!, { rule: 'unsanctioned_creation', reason: '  ' }),
    ).toThrow(/main\/audit\/queue.*reason: a reason is required/);
    expect(() =>
      ConformanceAspect.acknowledge(queue!, { rule: 'no_such_rule' as 'unsanctioned_creation', reason: 'x' }),
    ).toThrow(/rule must be one of unsanctioned_creation, capability_dependency_destroyed/);
  });

  it('fails synth when a resource a capability depends on disappears since the previous synth', () => {
    out = tempDir(`${toolkitName}-destroy`);
    const first = buildApp(tk, out.dir);
    applyConformance(first.app, aspect);
    first.app.synth();

    const second = buildApp(tk, out.dir, { ledger: false });
    applyConformance(second.app, aspect);
    const error = thrown(() => second.app.synth());
    expect(error.message).toContain('capability_dependency_destroyed (critical)');
    expect(error.message).toContain('terraform_data terraform_data.ledger (construct main/ledger');
    expect(error.message).toContain('capability ledger of package cdktf-test depends on it');
    // The previous synth is left as it was, so the next synth still sees the destruction.
    expect(readStackJson(out.dir, 'main').resource?.terraform_data).toHaveProperty('ledger');
  });

  it('judges what synth writes: a resource added by an override is judged, one removed by an override is destroyed', () => {
    out = tempDir(`${toolkitName}-override`);
    const added = buildApp(tk, out.dir);
    // An escape hatch: no construct shows this queue, cdk.tf.json has it.
    added.stack.addOverride('resource.aws_sqs_queue.sneaky', { name: 'x' });
    applyConformance(added.app, aspect);
    const error = thrown(() => added.app.synth());
    expect(error.message).toContain('unsanctioned_creation');
    expect(error.message).toContain('aws_sqs_queue.sneaky');

    const first = buildApp(tk, out.dir);
    applyConformance(first.app, aspect);
    first.app.synth();
    const removed = buildApp(tk, out.dir);
    removed.stack.addOverride('resource.terraform_data.ledger', undefined);
    applyConformance(removed.app, aspect);
    const destroyed = thrown(() => removed.app.synth());
    expect(destroyed.message).toContain('capability_dependency_destroyed (critical)');
    expect(destroyed.message).toContain('terraform_data.ledger');
  });

  it('a resource moved with moveFromId is not destroyed, as in the plan', () => {
    out = tempDir(`${toolkitName}-moved`);
    const first = buildApp(tk, out.dir);
    applyConformance(first.app, aspect);
    first.app.synth();

    const second = buildApp(tk, out.dir, { ledger: false });
    new tk.DataResource(second.stack, 'ledger2', { input: { v: 1 } }).moveFromId('terraform_data.ledger');
    applyConformance(second.app, aspect);
    second.app.synth();
    expect(aspect.conformanceOf(second.stack)).toMatchObject({
      destructionCheck: 'checked',
      findings: [],
      counts: expect.objectContaining({ destructions: 0 }),
    });
  });

  it('does not flag a disappearing resource no capability depends on', () => {
    out = tempDir(`${toolkitName}-destroy-free`);
    const first = buildApp(tk, out.dir, { queue: true });
    ConformanceAspect.acknowledge(first.queue!, { rule: 'unsanctioned_creation', reason: 'temporary' });
    applyConformance(first.app, aspect);
    first.app.synth();

    const second = buildApp(tk, out.dir);
    applyConformance(second.app, aspect);
    second.app.synth();
    expect(aspect.conformanceOf(second.stack)).toMatchObject({
      destructionCheck: 'checked',
      findings: [],
      counts: expect.objectContaining({ destructions: 1 }),
    });
  });

  it('a destruction acknowledged on the stack passes and is recorded', () => {
    out = tempDir(`${toolkitName}-destroy-ack`);
    const first = buildApp(tk, out.dir);
    applyConformance(first.app, aspect);
    first.app.synth();

    const second = buildApp(tk, out.dir, { ledger: false });
    ConformanceAspect.acknowledge(second.stack, {
      rule: 'capability_dependency_destroyed',
      reason: 'ledger moves to the new stack (CHG-7)',
    });
    applyConformance(second.app, aspect);
    second.app.synth();
    const record = readStackJson(out.dir, 'main')['//']?.tfgate?.['cdktf-test'];
    expect(record?.acknowledged).toEqual([
      expect.objectContaining({
        rule: 'capability_dependency_destroyed',
        address: 'terraform_data.ledger',
        construct_path: 'main/ledger',
        reason: 'ledger moves to the new stack (CHG-7)',
      }),
    ]);
  });

  it('minSeverity: findings below the threshold are warnings', () => {
    out = tempDir(`${toolkitName}-threshold`);
    const { app, queue } = buildApp(tk, out.dir, { queue: true });
    applyConformance(app, criticalOnly);
    app.synth();
    expect(warningsOn(queue!)[0]).toContain(
      'below min severity critical, not blocking: unsanctioned_creation',
    );
  });

  it('the per-stack trap: Aspects.of(app) never runs, applyConformance(app) does', () => {
    out = tempDir(`${toolkitName}-trap`);
    const trapped = buildApp(tk, out.dir, { queue: true });
    tk.Aspects.of(trapped.app).add(aspect);
    trapped.app.synth(); // silently unchecked: this is the trap
    expect(aspect.conformanceOf(trapped.stack)).toBeUndefined();

    const applied = buildApp(tk, out.dir, { queue: true });
    expect(applyConformance(applied.app, aspect)).toEqual([applied.stack]);
    expect(() => applied.app.synth()).toThrow(/unsanctioned_creation/);
  });

  it('attaches to every stack, including one defined after applyConformance', () => {
    out = tempDir(`${toolkitName}-stacks`);
    const { app } = buildApp(tk, out.dir);
    applyConformance(app, aspect);
    const late = new tk.TerraformStack(app, 'late');
    new tk.LocalBackend(late, { path: 'terraform.tfstate' });
    new (cloudResource(tk, 'aws_sqs_queue'))(late, 'queue');
    expect(() => app.synth()).toThrow(/\[late\/queue\].*unsanctioned_creation/s);
  });

  it('fails App.synth when a stack added later synthesizes before any attached stack', () => {
    out = tempDir(`${toolkitName}-escaped`);
    const app = new tk.App({ outdir: out.dir });
    const group = new Construct(app, 'group'); // comes first in synthesis order
    const main = new tk.TerraformStack(app, 'main');
    new tk.LocalBackend(main, { path: 'terraform.tfstate' });
    applyConformance(app, aspect);
    const early = new tk.TerraformStack(group, 'early');
    new tk.LocalBackend(early, { path: 'terraform.tfstate' });
    expect(() => app.synth()).toThrow(
      /\[tfgate\] stack group\/early was not checked against package cdktf-test: it was added after applyConformance\(\)/,
    );
  });

  it('works when attached to one stack directly with the toolkit Aspects', () => {
    out = tempDir(`${toolkitName}-direct`);
    const { app, stack } = buildApp(tk, out.dir, { queue: true });
    tk.Aspects.of(stack).add(aspect);
    expect(() => app.synth()).toThrow(/\[main\/audit\/queue\].*unsanctioned_creation/s);
  });

  it('fails closed when the aspect was attached with Aspects the toolkit does not read', () => {
    out = tempDir(`${toolkitName}-wrong-aspects`);
    const { app } = buildApp(tk, out.dir, { queue: true });
    // Another copy of the toolkit: its Aspects store is not the one this app's stacks read at synth.
    const other = TOOLKITS.find(([name]) => name !== toolkitName)![1];
    applyConformance(app, aspect, { aspects: other.Aspects });
    expect(() => app.synth()).toThrow(
      /\[main\] \[tfgate\] the conformance aspect for package cdktf-test did not run on this stack/,
    );
  });

  it('refuses to run where validations are skipped, unless advisory', () => {
    out = tempDir(`${toolkitName}-skip`);
    const skipped = buildApp(tk, out.dir, { queue: true, skipValidation: true });
    applyConformance(skipped.app, aspect);
    expect(() => skipped.app.synth()).toThrow(
      /skipValidation: true, so conformance findings could not fail synth/,
    );

    const advisorySkipped = buildApp(tk, out.dir, { queue: true, skipValidation: true });
    applyConformance(advisorySkipped.app, advisory);
    advisorySkipped.app.synth();
    expect(warningsOn(advisorySkipped.stack)).toEqual([
      '[tfgate] skipValidation is set: stack main was not checked against package cdktf-test',
    ]);
  });
  it('evaluates each resource at the address terraform plan gives it (nested, count, for_each)', async () => {
    out = tempDir(`${toolkitName}-addresses`);
    const app = new tk.App({ outdir: out.dir });
    const stack = new tk.TerraformStack(app, 'main');
    new tk.LocalBackend(stack, { path: 'terraform.tfstate' });
    new tk.DataResource(stack, 'ledger', { input: { v: 1 } });
    const deep = new Construct(new Construct(stack, 'api'), 'v2');
    new tk.DataResource(deep, 'config', { input: { v: 2 } });
    new tk.DataResource(deep, 'replica', { count: 2 });
    new tk.DataResource(stack, 'tenant', { forEach: tk.TerraformIterator.fromList(['a', 'b']) });
    applyConformance(app, flagAll);
    app.synth();
    const evaluated = (flagAll.conformanceOf(stack)?.findings ?? []).map((f) => f.address).sort();
    expect(evaluated).toContain('terraform_data.ledger');

    const workspace = TerraformWorkspace.create(join(out.dir, 'stacks', 'main'));
    try {
      await workspace.init();
      await workspace.plan(['-lock=false']);
      const plan = JSON.parse(await workspace.showPlanJson()) as {
        resource_changes: Array<{ address: string }>;
      };
      const planned = plan.resource_changes.map((c) => c.address);
      expect(planned).toHaveLength(6);
      expect(evaluated).toHaveLength(4);
      expect([...new Set(planned.map((a) => a.replace(/\[[^\]]*\]$/, '')))].sort()).toEqual(evaluated);
    } finally {
      workspace.cleanup();
    }
  });
});

describe('applyConformance given something else than an app and an aspect', () => {
  it('names the argument and what it must be, as a UsageError, never a TypeError', () => {
    const cases: Array<[unknown, string]> = [
      [undefined, 'undefined'],
      [null, 'null'],
      ['app', 'a string'],
      [{}, 'an object that is not one'],
      [{ node: {} }, 'an object that is not one'],
    ];
    for (const [scope, shown] of cases) {
      const error = thrown(() => applyConformance(scope as never, aspect));
      expect(error).toMatchObject({
        name: 'UsageError',
        code: 'invalid_argument',
        exitCode: 1,
        message: `applyConformance: the first argument must be a CDKTF App or TerraformStack (a construct), not ${shown}`,
      });
      expect((error as UsageError).hint).toMatch(/applyConformance\(app, aspect\).*before app\.synth\(\)/);
    }
  });

  it('names a missing aspect, and one that was not awaited', () => {
    out = tempDir('no-aspect');
    const app = new TOOLKITS[0]![1].App({ outdir: out.dir });
    expect(thrown(() => applyConformance(app, undefined as never))).toMatchObject({
      code: 'invalid_argument',
      message: 'applyConformance: the second argument must be a ConformanceAspect, not undefined',
    });
    const pending = ConformanceAspect.fromDesign(TEST_DESIGN);
    const error = thrown(() => applyConformance(app, pending as never));
    expect(error).toMatchObject({
      code: 'invalid_argument',
      message:
        'applyConformance: the second argument must be a ConformanceAspect, not a Promise (the aspect was not awaited)',
    });
    expect((error as UsageError).hint).toMatch(/await ConformanceAspect\.fromBundle/);
    return pending;
  });
});
