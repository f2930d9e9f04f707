import { describe, expect, it } from 'vitest';
import { InvalidPlanError } from '../../src/errors/index.js';
import { PLAN_ACTIONS } from '../../src/model/index.js';
import { ACTION_SHAPES, readPlan } from '../../src/plan/read-plan.js';
import { bufferSource } from '../../src/plan/source.js';
import { CHUNKINGS, splitBytes, streamOf } from './helpers.js';

const SECRET = 'TOP-SECRET-hunter2';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A resource change shaped like Terraform's, with secrets in every value field that must be dropped. */
function resourceChange(
  address: string,
  actions: string[],
  meta: Record<string, Json> = {},
  change: Record<string, Json> = {},
): Record<string, Json> {
  const values = { password: SECRET, nested: { list: [SECRET, 1.5, true, null], empty: {} }, n: -3e2 };
  return {
    address,
    mode: 'managed',
    type: 'aws_db_instance',
    name: address.split('.').pop()!.replace(/\[.*$/, ''),
    provider_name: 'registry.terraform.io/hashicorp/aws',
    ...meta,
    change: {
      actions,
      before: values,
      after: { ...values, id: null },
      after_unknown: { id: true },
      before_sensitive: { password: true },
      after_sensitive: { password: true },
      replace_paths: [['password']],
      ...change,
    },
    action_reason: 'replace_because_cannot_update',
  };
}

function planText(resourceChanges: Json[] | undefined, extra: Record<string, Json> = {}): string {
  return JSON.stringify({
    format_version: '1.2',
    terraform_version: '1.11.4',
    variables: { db_password: { value: SECRET } },
    planned_values: { root_module: { resources: [{ address: 'x', values: { password: SECRET } }] } },
    resource_drift: [resourceChange('aws_db_instance.drifted', ['update'])],
    ...(resourceChanges ? { resource_changes: resourceChanges } : {}),
    output_changes: { pw: { actions: ['create'], before: null, after: SECRET } },
    prior_state: {
      format_version: '1.0',
      values: { root_module: { resources: [{ values: { pw: SECRET } }] } },
    },
    configuration: { root_module: { variables: { db_password: { default: SECRET, sensitive: true } } } },
    relevant_attributes: [{ resource: 'aws_db_instance.x', attribute: ['password'] }],
    checks: [{ address: { kind: 'resource', to_display: SECRET }, status: 'pass' }],
    timestamp: '2025-01-01T00:00:00Z',
    applyable: true,
    complete: true,
    errored: false,
    ...extra,
  });
}

/** What the reader must keep of a resource change: Terraform's shape minus values. */
function kept(rc: Record<string, Json>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const key of [
    'address',
    'module_address',
    'mode',
    'type',
    'name',
    'index',
    'provider_name',
    'deposed',
    'previous_address',
  ]) {
    if (key in rc) out[key] = rc[key]!;
  }
  const change = rc.change as Record<string, Json>;
  out.change = {
    actions: change.actions!,
    ...('importing' in change ? { importing: change.importing! } : {}),
  };
  return out;
}

async function read(text: string | Buffer, chunking: (typeof CHUNKINGS)[number] = 'whole') {
  return readPlan(streamOf(text, chunking), { description: 'plan.json' });
}

async function readError(text: string | Buffer, chunking: (typeof CHUNKINGS)[number] = 'whole') {
  try {
    await read(text, chunking);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPlanError);
    const invalid = error as InvalidPlanError;
    expect(invalid.exitCode).toBe(4);
    expect(invalid.hint).toContain('terraform plan -out=tfplan && terraform show -json tfplan');
    return {
      message: invalid.message,
      offset: invalid.details?.offset as number,
      path: invalid.details?.path as string | null,
    };
  }
  throw new Error('the plan was accepted');
}

const EVERY_SHAPE = [
  ...ACTION_SHAPES.map((actions, i) => resourceChange(`aws_db_instance.shape${i}`, [...actions])),
  resourceChange('aws_db_instance.cbd', ['delete'], { deposed: 'aa19bf47' }),
  resourceChange('aws_db_instance.imported', ['no-op'], {}, { importing: { id: 'db-123' } }),
  resourceChange(
    'aws_db_instance.imported_update',
    ['update'],
    {},
    { importing: { id: 'db-456', unknown: false } },
  ),
  resourceChange('aws_db_instance.moved', ['no-op'], { previous_address: 'aws_db_instance.old' }),
  resourceChange('module.db["eu"].aws_db_instance.main[0]', ['create'], {
    module_address: 'module.db["eu"]',
    index: 0,
  }),
  resourceChange('aws_db_instance.each["ünï 日本 😀"]', ['create'], { index: 'ünï 日本 😀' }),
  { ...resourceChange('data.aws_iam_policy.p', ['read']), mode: 'data', type: 'aws_iam_policy' },
  resourceChange('aws_db_instance.esc["a\\"b<&>"]', ['create'], { index: 'a"b<&>' }),
];

describe('readPlan keeps what the rules need and nothing else', () => {
  for (const chunking of CHUNKINGS) {
    it(`reads every action shape, deposed, import, moved, module and index (${chunking} chunks)`, async () => {
      const plan = await read(planText(EVERY_SHAPE), chunking);
      expect(plan).toEqual({
        format_version: '1.2',
        terraform_version: '1.11.4',
        resource_changes: EVERY_SHAPE.map(kept),
      });
      expect(JSON.stringify(plan)).not.toContain(SECRET);
    });
  }

  it('gives the same result for random chunkings with many seeds', async () => {
    const text = planText(EVERY_SHAPE);
    const whole = await read(text);
    for (let seed = 2; seed < 30; seed++) {
      expect(await readPlan(streamOf(text, 'random', seed))).toEqual(whole);
    }
  });

  it('ignores empty chunks between bytes', async () => {
    const text = planText(EVERY_SHAPE);
    async function* withEmptyChunks() {
      for (const chunk of splitBytes(Buffer.from(text), 'random', 9)) {
        yield Buffer.alloc(0);
        yield chunk;
      }
    }
    expect(await readPlan(withEmptyChunks())).toEqual(await read(text));
  });

  it('accepts the same plan pretty-printed', async () => {
    const text = JSON.stringify(JSON.parse(planText(EVERY_SHAPE)), null, 2);
    expect(await read(text)).toEqual(await read(planText(EVERY_SHAPE)));
  });

  it('keeps key order and omits fields absent in the source', async () => {
    const plan = await read(planText([resourceChange('aws_s3_bucket.b', ['create'])]));
    const rc = plan.resource_changes[0]!;
    expect(Object.keys(rc)).toEqual(['address', 'mode', 'type', 'name', 'provider_name', 'change']);
    expect(Object.keys(rc.change)).toEqual(['actions']);
    expect(Object.keys(plan)).toEqual(['format_version', 'terraform_version', 'resource_changes']);
  });

  it('treats a plan without resource_changes (nothing to change) as zero changes', async () => {
    const plan = await read(planText(undefined));
    expect(plan).toEqual({ format_version: '1.2', terraform_version: '1.11.4', resource_changes: [] });
  });

  it('skips unknown fields anywhere, as a newer Terraform may add them', async () => {
    const rc = resourceChange(
      'aws_s3_bucket.b',
      ['create'],
      { future_field: { x: [SECRET] } },
      { future: SECRET },
    );
    const plan = await read(planText([rc], { new_top_level: { deep: [[SECRET]] } }));
    expect(plan.resource_changes).toEqual([kept(rc)]);
    expect(JSON.stringify(plan)).not.toContain(SECRET);
  });

  it('reads from a Node Readable (bufferSource) as well as an async iterable', async () => {
    const plan = await readPlan(bufferSource(planText(EVERY_SHAPE)).open());
    expect(plan.resource_changes).toHaveLength(EVERY_SHAPE.length);
  });

  it('skips a 50 MB value without keeping it', async () => {
    const huge = 'x'.repeat(50 * 1024 * 1024);
    const rc = resourceChange('aws_s3_bucket.big', ['update'], {}, { after: { blob: huge } });
    const text = planText([rc]);
    const plan = await readPlan(streamOf(text, 'whole'));
    expect(plan.resource_changes).toEqual([kept(rc)]);
  });
});

describe('readPlan refuses what is not a plan, saying where and what was expected', () => {
  it('empty input', async () => {
    const error = await readError('');
    expect(error.message).toMatch(/^plan\.json is not a Terraform plan in JSON: empty input/);
    expect(error.offset).toBe(0);
  });

  it('only whitespace', async () => {
    expect((await readError('  \n')).message).toMatch(/only whitespace/);
  });

  it("terraform's human-readable output instead of JSON", async () => {
    const error = await readError('Terraform will perform the following actions:');
    expect(error.message).toMatch(
      /not JSON: expected '\{', found text starting "Terraform …", terraform's human-readable output: give the output of `terraform show -json` \(byte 0/,
    );
    expect(error.offset).toBe(0);
  });

  it('a text file starting with t, f or n is text, not "a boolean" or "null"', async () => {
    for (const chunking of CHUNKINGS) {
      // Even byte by byte, as a pipe may deliver it: the reader holds the first bytes until a word fits.
      expect((await readError('this is not a plan\n', chunking)).message).toMatch(
        /not JSON: expected '\{', found text \(not shown: it may hold secrets\)/,
      );
      expect((await readError('nothing to see', chunking)).message).not.toMatch(/boolean|null/);
      // A word cut by the end of the input is text, not a literal still arriving.
      expect((await readError('tr', chunking)).message).toMatch(/found text \(not shown/);
      expect((await readError('n', chunking)).message).toMatch(/found text \(not shown/);
      // A real literal is still named as what it is.
      expect((await readError('true', chunking)).message).toMatch(/found a boolean/);
      expect((await readError('null\n', chunking)).message).toMatch(/found null/);
    }
  });

  it('a secrets file given as the plan is named as text, never quoted (the error lands in CI logs)', async () => {
    for (const chunking of CHUNKINGS) {
      for (const text of [
        'TOKEN=ghp_A1b2C3d4E5f6G7h8I9j0\n',
        'db_password = "Hunter2-S3cret"\n',
        'Terraformtoken=abc\n',
      ]) {
        const message = (await readError(text, chunking)).message;
        expect(message).toMatch(/found text \(not shown: it may hold secrets\)/);
        expect(message).not.toMatch(/ghp_|Hunter2|TOKEN|password|token/);
      }
      // A PEM private key: its label only.
      const key = (
        await readError('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n', chunking)
      ).message;
      expect(key).toMatch(/found a PEM block \("-----BEGIN PRIVATE KEY-----"\)/);
      expect(key).not.toContain('MIIE');
    }
  });

  it('the binary plan file instead of its JSON rendering', async () => {
    const error = await readError(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]));
    expect(error.message).toMatch(/binary plan file/);
  });

  it('a PEM key or a lone dash is text, not "a number"; a negative number is still a number', async () => {
    for (const chunking of CHUNKINGS) {
      const pem = await readError('-----BEGIN PUBLIC KEY-----\nMIIB\n', chunking);
      expect(pem.message).toMatch(
        /not JSON: expected '\{', found a PEM block \("-----BEGIN PUBLIC KEY-----"\): a key or certificate, not a plan/,
      );
      expect(pem.offset).toBe(0);
      expect((await readError('-', chunking)).message).toMatch(/found text \(not shown/);
      expect((await readError('-12', chunking)).message).toMatch(/found a number/);
    }
  });

  it('gzip-compressed data (a bundle, a compressed plan) is named as such', async () => {
    const error = await readError(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]));
    expect(error.message).toMatch(/gzip-compressed data/);
    expect(error.offset).toBe(0);
  });

  it('a UTF-8 byte order mark, and UTF-16', async () => {
    expect(
      (await readError(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')]))).message,
    ).toMatch(/byte order mark/);
    expect((await readError(Buffer.from('\ufeff{"format_version":"1.2"}', 'utf16le'))).message).toMatch(
      /UTF-16/,
    );
  });

  it('truncated input, at every cut of a real-shaped plan, in any chunking', async () => {
    const text = planText([resourceChange('aws_s3_bucket.b', ['create'])]);
    for (let cut = 1; cut < text.length - 1; cut += 7) {
      const error = await readError(text.slice(0, cut), cut % 2 === 0 ? 'whole' : 'random');
      expect(error.message, `cut at ${cut}`).toMatch(/unexpected end of input/);
      expect(error.offset, `cut at ${cut}`).toBe(cut);
    }
  });

  it('trailing data after the plan', async () => {
    const text = planText([]);
    const error = await readError(`${text}\n{"again":1}`);
    expect(error.message).toMatch(/unexpected data after the end of the JSON document/);
    expect(error.offset).toBe(text.length + 1);
  });

  it('a state file instead of a plan', async () => {
    const state = JSON.stringify({
      format_version: '1.0',
      terraform_version: '1.11.4',
      values: { root_module: {} },
    });
    const error = await readError(state);
    expect(error.message).toMatch(/this is a state, not a plan/);
    expect(error.path).toBe('$');
  });

  it('an empty state (format_version only) is not a plan', async () => {
    expect((await readError('{"format_version":"1.0"}')).message).toMatch(/neither "resource_changes" nor/);
  });

  it('an array, a string or a number at the top level', async () => {
    for (const text of ['[{"format_version":"1.2"}]', '"plan"', '42']) {
      const error = await readError(text);
      expect(error.message).toMatch(
        /expected a JSON object \(the output of `terraform show -json <planfile>`\)/,
      );
      expect(error.offset).toBe(0);
      expect(error.path).toBe('$');
    }
  });

  it('missing or unsupported format_version', async () => {
    expect((await readError('{"resource_changes":[]}')).message).toMatch(/missing "format_version"/);
    const text = planText([], { format_version: '2.0' });
    const error = await readError(text);
    expect(error.message).toMatch(/unsupported format_version "2.0"/);
    expect(error.path).toBe('$.format_version');
    expect(error.offset).toBe(text.indexOf('"2.0"'));
  });

  it('resource_changes that is not an array', async () => {
    const text = planText(undefined, { resource_changes: { a: 1 } });
    const error = await readError(text);
    expect(error.message).toMatch(/expected an array of resource changes, found an object/);
    expect(error.path).toBe('$.resource_changes');
    expect(error.offset).toBe(text.indexOf('{"a":1}'));
  });

  it('actions that are not an array of strings', async () => {
    const notArray = planText([resourceChange('a.b', [])]).replace('"actions":[]', '"actions":"create"');
    let error = await readError(notArray);
    expect(error.message).toMatch(/expected an array of action strings, found a string/);
    expect(error.path).toBe('$.resource_changes[0].change.actions');
    expect(error.offset).toBe(notArray.indexOf('"create"'));

    const notString = planText([resourceChange('a.b', ['create']), resourceChange('a.c', [])]).replace(
      '"actions":[]',
      '"actions":["create",7]',
    );
    error = await readError(notString);
    expect(error.message).toMatch(/expected an action string, found a number/);
    expect(error.path).toBe('$.resource_changes[1].change.actions[1]');
    expect(error.offset).toBe(notString.indexOf('7]'));
  });

  it('an unknown action is an error naming the known ones, not a pass', async () => {
    const text = planText([
      resourceChange('a.b', ['create']),
      resourceChange('a.c', ['update']),
      resourceChange('a.d', ['create']),
      resourceChange('a.e', ['delete', 'explode']),
    ]);
    const error = await readError(text);
    expect(error.message).toMatch(/unknown action "explode"/);
    for (const action of PLAN_ACTIONS) expect(error.message).toContain(`"${action}"`);
    expect(error.path).toBe('$.resource_changes[3].change.actions[1]');
    expect(error.offset).toBe(text.indexOf('"explode"'));
  });

  it('an impossible action combination, and no action at all', async () => {
    for (const actions of [['delete', 'delete'], ['update', 'create'], ['create', 'delete', 'create'], []]) {
      const error = await readError(planText([resourceChange('a.b', actions)]));
      expect(error.message).toMatch(actions.length ? /impossible action combination/ : /at least one action/);
      expect(error.path).toBe('$.resource_changes[0].change.actions');
    }
  });

  it('wrong types and values of the other kept fields', async () => {
    const cases: [Record<string, Json>, RegExp, string][] = [
      [{ mode: 'resource' }, /expected "managed" or "data", found "resource"/, '$.resource_changes[0].mode'],
      [
        { address: 12 },
        /expected a non-empty string, found a number|expected a string, found a number/,
        '$.resource_changes[0].address',
      ],
      [
        { index: true },
        /expected a string or a non-negative integer, found a boolean/,
        '$.resource_changes[0].index',
      ],
      [{ deposed: null }, /expected a string, found null/, '$.resource_changes[0].deposed'],
    ];
    for (const [meta, message, path] of cases) {
      const error = await readError(planText([resourceChange('a.b', ['create'], meta)]));
      expect(error.message).toMatch(message);
      expect(error.path).toBe(path);
    }
    const changeArray = await readError(planText([{ ...resourceChange('a.b', ['create']), change: [] }]));
    expect(changeArray.message).toMatch(/expected an object \(the change\), found an array/);
    expect(changeArray.path).toBe('$.resource_changes[0].change');
    const importing = await readError(
      planText([resourceChange('a.b', ['no-op'], {}, { importing: 'db-1' })]),
    );
    expect(importing.message).toMatch(/expected an object, found a string/);
    expect(importing.path).toBe('$.resource_changes[0].change.importing');
  });

  it('missing required fields of a resource change', async () => {
    const rc = resourceChange('a.b', ['create']);
    delete rc.type;
    const error = await readError(planText([resourceChange('a.a', ['create']), rc]));
    expect(error.message).toMatch(/missing required field "type"/);
    expect(error.path).toBe('$.resource_changes[1]');
    const noActions = await readError(
      planText([resourceChange('a.b', ['create'])]).replace('"actions":["create"],', ''),
    );
    expect(noActions.message).toMatch(/missing required field "actions"/);
    expect(noActions.path).toBe('$.resource_changes[0].change');
  });

  it('malformed JSON inside a skipped value, with the path of the value it is in', async () => {
    const text = planText([resourceChange('a.b', ['create']), resourceChange('a.c', ['create'])]);
    const at = text.lastIndexOf('"n":-300');
    const broken = `${text.slice(0, at)}"n":-300.}${text.slice(at + '"n":-300}'.length)}`;
    const error = await readError(broken);
    expect(error.message).toMatch(/invalid number: expected a digit after '\.', found '\}'/);
    expect(error.message).toMatch(/inside \$\.resource_changes\[1\]\.change\.after/);
    expect(error.offset).toBe(at + '"n":-300.'.length);

    const literal = planText([resourceChange('a.b', ['create'])]).replace(
      '"applyable":true',
      '"applyable":yes',
    );
    const literalError = await readError(literal);
    expect(literalError.message).toMatch(/expected a JSON value, found 'y'/);
    expect(literalError.offset).toBe(literal.indexOf('yes'));

    const missingColon = planText([]).replace('"timestamp":', '"timestamp" ');
    expect((await readError(missingColon)).message).toMatch(/expected ':' after an object key/);
  });

  it('a huge string where a short one is expected', async () => {
    const text = planText([resourceChange(`a.${'b'.repeat(2 * 1024 * 1024)}`, ['create'])]);
    const error = await readError(text, 'random');
    expect(error.message).toMatch(/string longer than 1048576 bytes where a short value is expected/);
    expect(error.path).toBe('$.resource_changes[0].address');
    expect(error.offset).toBe(text.indexOf('"a.bbb'));
  });

  it('a kept object (change.importing) larger than 1 MiB', async () => {
    const importing: Record<string, Json> = {};
    for (let k = 0; k < 40_000; k++) importing[`key${k}`] = 'value-of-some-length';
    const text = planText([resourceChange('a.b', ['no-op'], {}, { importing })]);
    const error = await readError(text);
    expect(error.message).toMatch(/value larger than 1048576 bytes where a small value is expected/);
    expect(error.offset).toBe(text.indexOf('{"key0"'));
  });

  it('invalid UTF-8 or a raw control character in a kept string', async () => {
    const text = planText([resourceChange('a.XX', ['create'])]);
    const at = text.indexOf('a.XX');
    const bytes = Buffer.from(text);
    bytes[at + 2] = 0xc3;
    bytes[at + 3] = 0x28;
    expect((await readError(bytes)).message).toMatch(/invalid UTF-8 inside a string/);
    bytes[at + 2] = 0x0a;
    const control = await readError(bytes);
    expect(control.message).toMatch(/control character byte 0x0a inside a string/);
    expect(control.offset).toBe(at + 2);
  });
});
