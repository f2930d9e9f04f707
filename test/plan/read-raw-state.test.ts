// readRawState on hand-made raw states: the shapes terraform writes that a configuration here cannot produce
// (a deposed object with no current one, a tainted object, a resource with no instances), Terraform's
// own refusals, and hostile JSON. raw-state-terraform.test.ts checks it against the real terraform and tofu.
import { describe, expect, it } from 'vitest';
import { InvalidPlanError } from '../../src/errors/index.js';
import { toHCLQuotedString } from '../../src/plan/instance-key.js';
import { readPulledState, readRawState } from '../../src/plan/read-raw-state.js';
import { CHUNKINGS, streamOf } from './helpers.js';

const SECRET = 'TOP-SECRET-attribute';

const instance = (extra: Record<string, unknown> = {}) => ({
  schema_version: 0,
  attributes: { id: 'i-1', password: SECRET, nested: { deep: [SECRET, { x: SECRET }] } },
  sensitive_attributes: [[{ type: 'get_attr', value: 'password' }]],
  private: 'eyJzZWNyZXQiOiJ4In0=',
  dependencies: ['aws_vpc.main'],
  ...extra,
});

const state = (resources: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    version: 4,
    terraform_version: '1.11.4',
    serial: 7,
    lineage: 'c0ffee00-0000-4000-8000-000000000001',
    outputs: { password: { value: SECRET, type: 'string', sensitive: true } },
    resources,
    check_results: null,
    ...extra,
  });

const aws = 'provider["registry.terraform.io/hashicorp/aws"]';

describe('readRawState', () => {
  it.each(CHUNKINGS)(
    'lists every instance object as show -json does (%s chunks); values are never kept',
    async (chunking) => {
      const text = state([
        { mode: 'managed', type: 'aws_db_instance', name: 'ledger', provider: aws, instances: [instance()] },
        {
          mode: 'data',
          type: 'aws_iam_policy',
          name: 'p',
          provider: aws,
          instances: [instance({ index_key: null })],
        },
        {
          module: 'module.queue["ünï"].module.dlq[0]',
          mode: 'managed',
          type: 'aws_sqs_queue',
          name: 'q',
          each: 'map',
          provider: aws,
          instances: [
            instance({ index_key: 'a"b', status: 'tainted' }),
            // A deposed object with no current one (create_before_destroy, the new object's create failed
            // and was rolled back): listed under its instance's address, once.
            instance({ index_key: 'gone', deposed: '00000001', create_before_destroy: true }),
          ],
        },
        {
          mode: 'managed',
          type: 'aws_instance',
          name: 'web',
          each: 'list',
          provider: aws,
          instances: [
            instance({ index_key: 0 }),
            instance({ index_key: 0, deposed: 'abcd1234' }),
            instance({ index_key: 1, deposed: '' }),
          ],
        },
        { mode: 'managed', type: 'aws_eip', name: 'none', provider: aws, instances: [] },
      ]);
      const read = await readRawState(streamOf(text, chunking));
      expect(read.identity).toEqual({ serial: 7, lineage: 'c0ffee00-0000-4000-8000-000000000001' });
      expect(read.state).toEqual({
        terraform_version: '1.11.4',
        resources: [
          { address: 'aws_db_instance.ledger', mode: 'managed', type: 'aws_db_instance', name: 'ledger' },
          { address: 'data.aws_iam_policy.p', mode: 'data', type: 'aws_iam_policy', name: 'p' },
          {
            address: 'module.queue["ünï"].module.dlq[0].aws_sqs_queue.q["a\\"b"]',
            mode: 'managed',
            type: 'aws_sqs_queue',
            name: 'q',
            module_address: 'module.queue["ünï"].module.dlq[0]',
          },
          {
            address: 'module.queue["ünï"].module.dlq[0].aws_sqs_queue.q["gone"]',
            mode: 'managed',
            type: 'aws_sqs_queue',
            name: 'q',
            module_address: 'module.queue["ünï"].module.dlq[0]',
          },
          { address: 'aws_instance.web[0]', mode: 'managed', type: 'aws_instance', name: 'web' },
          { address: 'aws_instance.web[0]', mode: 'managed', type: 'aws_instance', name: 'web' },
          { address: 'aws_instance.web[1]', mode: 'managed', type: 'aws_instance', name: 'web' },
        ],
      });
      expect(JSON.stringify(read)).not.toContain(SECRET);
    },
  );

  it('reads an empty state, and one with no resources key, as no resources', async () => {
    expect((await readRawState(streamOf(state([])))).state.resources).toEqual([]);
    const bare = JSON.stringify({ version: 4, serial: 0, lineage: 'l' });
    expect(await readRawState(streamOf(bare))).toEqual({
      identity: { serial: 0, lineage: 'l' },
      state: { resources: [] },
    });
  });

  it.each([
    ['version 3', state([], { version: 3 }), /unsupported state version 3: tfgate reads version 4/],
    ['version "4"', state([], { version: '4' }), /unsupported state version a string/],
    ['no version', JSON.stringify({ serial: 1, lineage: 'l' }), /missing "version"/],
    ['show -json output', JSON.stringify({ format_version: '1.0', values: {} }), /missing "version"/],
    ['no serial', JSON.stringify({ version: 4, lineage: 'l' }), /missing required field "serial"/],
    [
      'a bad mode',
      state([{ mode: 'ephemeral', type: 't', name: 'n', instances: [] }]),
      /"managed" or "data"/,
    ],
    ['no type', state([{ mode: 'managed', name: 'n', instances: [] }]), /missing required field "type"/],
    [
      'a fractional index',
      state([{ mode: 'managed', type: 't', name: 'n', instances: [{ index_key: 1.5 }] }]),
      /an instance key/,
    ],
    [
      'a boolean index',
      state([{ mode: 'managed', type: 't', name: 'n', instances: [{ index_key: true }] }]),
      /an instance key/,
    ],
    [
      'a bad status',
      state([{ mode: 'managed', type: 't', name: 'n', instances: [{ status: 'gone' }] }]),
      /"tainted" or ""/,
    ],
    [
      'a malformed deposed key',
      state([{ mode: 'managed', type: 't', name: 'n', instances: [{}, { deposed: 'abc' }] }]),
      /t\.n has a deposed object with the malformed key "abc"/,
    ],
    [
      'an instance twice (in two resource entries)',
      state([
        { mode: 'managed', type: 't', name: 'n', instances: [{ index_key: 'k' }] },
        { mode: 'managed', type: 't', name: 'n', instances: [{ index_key: 'k' }] },
      ]),
      /t\.n\["k"\] appears more than once/,
    ],
    [
      'a deposed object twice',
      state([
        {
          mode: 'managed',
          type: 't',
          name: 'n',
          instances: [{ deposed: 'aaaaaaaa' }, { deposed: 'aaaaaaaa' }],
        },
      ]),
      /t\.n \(deposed "aaaaaaaa"\) appears more than once/,
    ],
    [
      'a lone surrogate in a key',
      state([{ mode: 'managed', type: 't', name: 'n', instances: [{ index_key: 'PLACEHOLDER' }] }]).replace(
        'PLACEHOLDER',
        '\\ud800',
      ),
      /surrogate/,
    ],
  ])('refuses %s in plain words', async (_what, text, message) => {
    const error = await readRawState(streamOf(text), { description: 'the pg state' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidPlanError);
    expect((error as Error).message).toMatch(/^the pg state is not a raw Terraform state/);
    expect((error as Error).message).toMatch(message);
  });

  it('reads duplicate keys as JSON.parse does: the last one wins', async () => {
    const text = `{"version":3,"version":4,"serial":1,"lineage":"l","resources":[{"mode":"data","type":"a","name":"b","mode":"managed","instances":[{"index_key":1,"index_key":"k"}]}]}`;
    expect((await readRawState(streamOf(text))).state.resources).toEqual([
      { address: 'a.b["k"]', mode: 'managed', type: 'a', name: 'b' },
    ]);
  });
});

describe('readPulledState: the one rule for "holds no state" (backend reads, tfgate state push)', () => {
  it('nothing pulled, or a state with no lineage, holds no state', async () => {
    expect(await readPulledState(streamOf(''))).toBeUndefined();
    expect(await readPulledState((async function* () {})())).toBeUndefined();
    expect(await readPulledState(streamOf(state([], { lineage: '' })))).toBeUndefined();
  });

  it('a state whose every resource was destroyed keeps its lineage: read, with no resources', async () => {
    // What terraform 1.11 writes after `terraform destroy` of everything.
    const destroyed = JSON.stringify({
      version: 4,
      terraform_version: '1.11.4',
      serial: 3,
      lineage: 'e2c97807-435a-7d63-3a7f-9c302aa80df7',
      outputs: {},
      resources: [],
      check_results: null,
    });
    for (const chunking of CHUNKINGS) {
      expect(await readPulledState(streamOf(destroyed, chunking))).toEqual({
        identity: { serial: 3, lineage: 'e2c97807-435a-7d63-3a7f-9c302aa80df7' },
        state: { terraform_version: '1.11.4', resources: [] },
      });
    }
  });

  it('what is not a state is refused, not taken for "no state"', async () => {
    await expect(readPulledState(streamOf('{"format_version":"1.0"}'))).rejects.toThrow(/missing "version"/);
    await expect(readPulledState(streamOf(' '))).rejects.toBeInstanceOf(InvalidPlanError);
  });
});

describe('toHCLQuotedString (Terraform and OpenTofu addrs.StringKey)', () => {
  it.each([
    ['', '""'],
    ['plain', '"plain"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\n\r\t', '"\\n\\r\\t"'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: terraform template syntax, meant literally.
    ['${x}%{y}', '"$${x}%%{y}"'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: terraform template syntax, meant literally.
    ['$$${x}', '"$$$${x}"'],
    ['$ % {', '"$ % {"'],
    [
      '\u0000\u0001\u007f\u0085\u00a0\u200b\u2028\ufeff',
      '"\\u0000\\u0001\\u007f\\u0085\\u00a0\\u200b\\u2028\\ufeff"',
    ],
    ['é中😀', '"é中😀"'],
    ['\u{e0001}\u{f0000}', '"\\U000e0001\\U000f0000"'],
  ])('%j is written %s', (key, quoted) => {
    expect(toHCLQuotedString(key)).toBe(quoted);
  });
});
