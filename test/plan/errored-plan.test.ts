// An errored plan: Terraform writes the plan file even when planning fails, and `terraform show -json` of it
// says `"errored": true` with only part of the resource changes. The reader refuses it: never judged as whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, InvalidPlanError } from '../../src/errors/index.js';
import { readPlan } from '../../src/plan/read-plan.js';
import { erroredPlan, guardedWorkspace } from '../helpers/errored-plan.js';
import type { TerraformWorkspace } from '../helpers/terraform.js';
import { CHUNKINGS, streamOf } from './helpers.js';

const INCOMPLETE =
  'the plan is incomplete: terraform reported errors while planning; fix them and plan again';

let ws: TerraformWorkspace;
let erroredJson: string;
let wholeJson: string;

beforeAll(async () => {
  ws = await guardedWorkspace();
  const failed = await erroredPlan(ws);
  expect(failed.exitCode).toBe(1);
  expect(failed.stderr).toContain('release must be v2');
  erroredJson = await ws.showPlanJson('errored.tfplan');
  await ws.plan(['-var', 'release=v2'], 'whole.tfplan');
  wholeJson = await ws.showPlanJson('whole.tfplan');
}, 60_000);

afterAll(() => ws?.cleanup());

describe('an errored plan from the real terraform', () => {
  it('is what terraform writes: "errored": true, and only part of the changes', () => {
    const plan = JSON.parse(erroredJson) as { errored: boolean; resource_changes: { address: string }[] };
    expect(plan.errored).toBe(true);
    // The guarded resource is missing: evaluating this plan would judge half of the change.
    expect(plan.resource_changes.map((rc) => rc.address)).toEqual(['terraform_data.ok']);
  });

  it.each(CHUNKINGS)('is refused as incomplete (no decision, exit 4), read %s', async (chunking) => {
    const error = await readPlan(streamOf(erroredJson, chunking), { description: 'errored.json' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidPlanError);
    const refused = error as InvalidPlanError;
    expect(refused.exitCode).toBe(ExitCode.noDecision);
    expect(refused.message).toContain(INCOMPLETE);
    expect(refused.message).toContain('errored.json');
    expect(refused.details).toMatchObject({ path: '$.errored' });
  });

  it('the same configuration planned without errors is read whole, without the errored field', async () => {
    expect((JSON.parse(wholeJson) as { errored: boolean }).errored).toBe(false);
    const plan = await readPlan(streamOf(wholeJson));
    expect(plan.resource_changes.map((rc) => rc.address).sort()).toEqual([
      'terraform_data.guarded',
      'terraform_data.ok',
    ]);
    expect(plan).not.toHaveProperty('errored');
  });
});

describe('the errored field', () => {
  it('must be true or false', async () => {
    const bad = wholeJson.replace('"errored":false', '"errored":"no"');
    expect(bad).not.toBe(wholeJson);
    await expect(readPlan(streamOf(bad))).rejects.toThrow(/expected true or false, found a string.*errored/);
  });
});
