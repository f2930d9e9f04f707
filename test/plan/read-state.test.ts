import { describe, expect, it } from 'vitest';
import { InvalidPlanError, StateMissingError } from '../../src/errors/index.js';
import { readObservedState } from '../../src/plan/read-state.js';
import { CHUNKINGS, streamOf } from './helpers.js';

const SECRET = 'TOP-SECRET-state-value';

function resource(address: string, moduleAddress?: string) {
  const local = moduleAddress ? address.slice(moduleAddress.length + 1) : address;
  const data = local.startsWith('data.');
  const [type, nameWithIndex] = (data ? local.slice(5) : local).split('.');
  return {
    address,
    mode: data ? 'data' : 'managed',
    type,
    name: nameWithIndex!.replace(/\[.*$/, ''),
    provider_name: 'registry.terraform.io/hashicorp/aws',
    schema_version: 0,
    values: { password: SECRET, tags: { a: SECRET } },
    sensitive_values: { password: true },
    depends_on: ['aws_vpc.main'],
  };
}

const STATE = {
  format_version: '1.0',
  terraform_version: '1.11.4',
  values: {
    outputs: { db_password: { sensitive: true, value: SECRET, type: 'string' } },
    root_module: {
      resources: [resource('aws_db_instance.ledger'), resource('data.aws_iam_policy.p')],
      child_modules: [
        {
          resources: [resource('module.queue.aws_sqs_queue.q["ünï"]', 'module.queue')],
          address: 'module.queue',
          child_modules: [
            {
              address: 'module.queue.module.dlq',
              resources: [
                resource('module.queue.module.dlq.aws_sqs_queue.dlq[0]', 'module.queue.module.dlq'),
              ],
            },
          ],
        },
        { address: 'module.empty' },
        { address: 'module.bucket', resources: [resource('module.bucket.aws_s3_bucket.b', 'module.bucket')] },
      ],
    },
  },
};

async function readError(text: string) {
  try {
    await readObservedState(streamOf(text), { description: 'state.json' });
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPlanError);
    const invalid = error as InvalidPlanError;
    expect(invalid.hint).toContain('terraform show -json > state.json');
    return { message: invalid.message, offset: invalid.details?.offset, path: invalid.details?.path };
  }
  throw new Error('the state was accepted');
}

describe('readObservedState', () => {
  for (const chunking of CHUNKINGS) {
    it(`flattens nested modules in document order with module_address, without values (${chunking} chunks)`, async () => {
      const state = await readObservedState(streamOf(JSON.stringify(STATE), chunking));
      expect(state).toEqual({
        format_version: '1.0',
        terraform_version: '1.11.4',
        resources: [
          { address: 'aws_db_instance.ledger', mode: 'managed', type: 'aws_db_instance', name: 'ledger' },
          { address: 'data.aws_iam_policy.p', mode: 'data', type: 'aws_iam_policy', name: 'p' },
          {
            address: 'module.queue.aws_sqs_queue.q["ünï"]',
            mode: 'managed',
            type: 'aws_sqs_queue',
            name: 'q',
            module_address: 'module.queue',
          },
          {
            address: 'module.queue.module.dlq.aws_sqs_queue.dlq[0]',
            mode: 'managed',
            type: 'aws_sqs_queue',
            name: 'dlq',
            module_address: 'module.queue.module.dlq',
          },
          {
            address: 'module.bucket.aws_s3_bucket.b',
            mode: 'managed',
            type: 'aws_s3_bucket',
            name: 'b',
            module_address: 'module.bucket',
          },
        ],
      });
      expect(JSON.stringify(state)).not.toContain(SECRET);
    });
  }

  it('refuses a document that holds no state: terraform prints it where there is none, and after a destroy', async () => {
    for (const [text, what] of [
      ['{"format_version":"1.0"}', 'it has no "values"'],
      ['{"format_version":"1.0","terraform_version":"1.11.4","values":{}}', '"values" has no "root_module"'],
    ] as const) {
      const error = await readObservedState(streamOf(text), { description: 'state.json' }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StateMissingError);
      const missing = error as StateMissingError;
      expect(missing.exitCode).toBe(4);
      expect(missing.message).toContain(`state.json holds no state: ${what}`);
      expect(missing.message).toContain('never reads it as "nothing exists"');
      expect(missing.hint).toContain('tfgate state push');
      expect(missing.details).toMatchObject({ path: '$.values.root_module' });
    }
  });

  it('reads a state with no resources (values.root_module with none, as terraform prints beside outputs)', async () => {
    expect(
      await readObservedState(
        streamOf(
          '{"format_version":"1.0","terraform_version":"1.11.4","values":{"outputs":{"o":{"sensitive":false,"value":"v","type":"string"}},"root_module":{}}}',
        ),
      ),
    ).toEqual({ format_version: '1.0', terraform_version: '1.11.4', resources: [] });
  });

  it('refuses a plan, with the same hint about how to produce a state', async () => {
    const plan = JSON.stringify({
      format_version: '1.2',
      planned_values: { root_module: {} },
      resource_changes: [],
    });
    expect((await readError(plan)).message).toMatch(
      /^state\.json is not a Terraform state in JSON: .*this is a plan/,
    );
  });

  it('refuses what is not a state, saying where', async () => {
    expect((await readError('')).message).toMatch(/empty input/);
    expect((await readError('[]')).message).toMatch(/expected a JSON object/);
    expect((await readError('{"values":{}}')).message).toMatch(/missing "format_version"/);
    const truncated = JSON.stringify(STATE).slice(0, 300);
    const cut = await readError(truncated);
    expect(cut.message).toMatch(/unexpected end of input/);
    expect(cut.offset).toBe(300);

    const badResources = JSON.stringify({
      format_version: '1.0',
      values: { root_module: { resources: {} } },
    });
    const resources = await readError(badResources);
    expect(resources.message).toMatch(/expected an array of resources, found an object/);
    expect(resources.path).toBe('$.values.root_module.resources');

    const badMode = JSON.stringify(STATE).replace('"mode":"data"', '"mode":"ephemeral"');
    const mode = await readError(badMode);
    expect(mode.message).toMatch(/expected "managed" or "data", found "ephemeral"/);
    expect(mode.path).toBe('$.values.root_module.resources[1].mode');

    const nested = JSON.parse(JSON.stringify(STATE));
    delete nested.values.root_module.child_modules[0].child_modules[0].resources[0].type;
    const missing = await readError(JSON.stringify(nested));
    expect(missing.message).toMatch(/missing required field "type"/);
    expect(missing.path).toBe('$.values.root_module.child_modules[0].child_modules[0].resources[0]');
  });
});
