import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_CATALOG } from '../../src/catalog/index.js';
import type { Design } from '../../src/design/index.js';
import { compileAddressMatcher, compileAddressPattern, compilePolicyData } from '../../src/policy/data.js';

// entry -> addresses it must match, and addresses it must not.
const cases: Array<{ entry: string; matches: string[]; misses: string[] }> = [
  {
    entry: 'aws_db_instance.ledger',
    matches: [
      'aws_db_instance.ledger',
      'aws_db_instance.ledger[0]',
      'aws_db_instance.ledger["a"]',
      'aws_db_instance.ledger["a.b[c]"]',
    ],
    misses: [
      'aws_db_instance.ledger2',
      'aws_db_instance.ledgers[0]',
      'xaws_db_instance.ledger',
      'module.m.aws_db_instance.ledger',
      'aws_db_instanceXledger',
      'aws_db_instance.ledger[0].x',
    ],
  },
  {
    entry: 'module.queue.*',
    matches: [
      'module.queue.aws_sqs_queue.q',
      'module.queue[0].aws_sqs_queue.q',
      'module.queue["eu"].module.x.aws_sqs_queue.q[1]',
    ],
    misses: ['module.queues.aws_sqs_queue.q', 'module.other.module.queue.aws_sqs_queue.q', 'module.queue'],
  },
  {
    entry: 'module.app.module.db.aws_db_instance.main',
    matches: [
      'module.app.module.db.aws_db_instance.main',
      'module.app[1].module.db["x"].aws_db_instance.main[0]',
    ],
    misses: ['module.app.module.dbx.aws_db_instance.main', 'module.app.aws_db_instance.main'],
  },
  {
    entry: 'aws_s3_bucket.logs[0]',
    matches: ['aws_s3_bucket.logs[0]'],
    misses: ['aws_s3_bucket.logs[1]', 'aws_s3_bucket.logs', 'aws_s3_bucket.logs[0][0]'],
  },
  {
    entry: 'aws_s3_bucket.by_name["a.b"]',
    matches: ['aws_s3_bucket.by_name["a.b"]'],
    misses: ['aws_s3_bucket.by_name["aXb"]', 'aws_s3_bucket.by_name'],
  },
  {
    entry: 'aws_s3_bucket.by_name["*"]',
    matches: ['aws_s3_bucket.by_name["a"]', 'aws_s3_bucket.by_name[""]'],
    misses: ['aws_s3_bucket.by_name[0]', 'aws_s3_bucket.by_name'],
  },
  {
    entry: '*.ledger',
    matches: ['aws_db_instance.ledger', 'module.m.aws_db_instance.ledger', 'aws_db_instance.ledger[3]'],
    misses: ['aws_db_instance.ledger2'],
  },
  {
    entry: 'aws_lambda_function.fn_(v2)+',
    matches: ['aws_lambda_function.fn_(v2)+'],
    misses: ['aws_lambda_function.fn_v2', 'aws_lambda_function.fn_(v2)(v2)'],
  },
  {
    entry: '*',
    matches: ['anything.at_all[0]', ''],
    misses: [],
  },
];

describe('compileAddressPattern', () => {
  for (const { entry, matches, misses } of cases) {
    it(`${entry} matches its resource, its instances and its glob, and nothing else`, () => {
      const pattern = new RegExp(compileAddressPattern(entry));
      for (const address of matches)
        expect({ address, matched: pattern.test(address) }).toEqual({ address, matched: true });
      for (const address of misses)
        expect({ address, matched: pattern.test(address) }).toEqual({ address, matched: false });
    });
  }

  it('is anchored at both ends', () => {
    for (const { entry } of cases) {
      const pattern = compileAddressPattern(entry);
      expect(pattern.startsWith('^')).toBe(true);
      expect(pattern.endsWith('$')).toBe(true);
    }
  });
});

describe('RE2 compatibility (the real opa)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tfgate-re2-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("OPA's regex.match agrees with JavaScript on every pattern and address", async () => {
    const pairs = cases.flatMap(({ entry, matches, misses }) =>
      [...matches, ...misses].map((address) => [compileAddressPattern(entry), address] as const),
    );
    const design = compilePolicyData({
      package_id: 'p',
      sanctioned_kinds: [],
      capabilities: cases.map(({ entry }, i) => ({ name: `c${i}`, depends_on: [entry] })),
      catalog: {},
    });
    // The combined pattern, too: it is what a destruction meets first.
    for (const { matches } of cases)
      for (const address of matches) pairs.push([design.dependency_pattern, address]);
    writeFileSync(join(dir, 'input.json'), JSON.stringify({ pairs }));
    const { stdout } = await execa('opa', [
      'eval',
      '--format',
      'json',
      '-i',
      join(dir, 'input.json'),
      '[regex.match(pair[0], pair[1]) | some pair in input.pairs]',
    ]);
    const opaResults = JSON.parse(stdout).result[0].expressions[0].value as boolean[];
    const jsResults = pairs.map(([pattern, address]) => new RegExp(pattern).test(address));
    expect(opaResults).toEqual(jsResults);
    expect(jsResults.filter(Boolean).length).toBeGreaterThan(10);
  });
});

describe('compilePolicyData', () => {
  it('compiles the design into what data.tfgate holds', () => {
    const data = compilePolicyData({
      package_id: 'payments',
      sanctioned_kinds: ['queue', 'object_storage', 'queue'],
      capabilities: [{ name: 'ledger', depends_on: ['aws_db_instance.ledger', 'module.queue.*'] }],
      catalog: { terraform_data: 'generic_data', aws_s3_bucket: 'archive' },
    });
    expect(data.package_id).toBe('payments');
    expect(data.sanctioned_kinds).toEqual(['object_storage', 'queue']);
    expect(data.capabilities).toEqual([
      {
        name: 'ledger',
        depends_on: ['aws_db_instance.ledger', 'module.queue.*'],
        patterns: [compileAddressPattern('aws_db_instance.ledger'), compileAddressPattern('module.queue.*')],
        matchers: [compileAddressMatcher('aws_db_instance.ledger'), compileAddressMatcher('module.queue.*')],
      },
    ]);
    expect(data.dependency_pattern).toBe(data.capabilities[0]?.patterns.join('|'));
    expect(data.catalog.terraform_data).toBe('generic_data');
    expect(data.catalog.aws_s3_bucket).toBe('archive');
    expect(data.catalog.aws_sqs_queue).toBe(BUILTIN_CATALOG.aws_sqs_queue);
  });

  it('validates a design object as a design file: a catalog entry mapped to null is refused, not dropped', async () => {
    // Before: the queue's type mapped to nothing, so a creation of one was neither flagged nor counted.
    const design = {
      package_id: 'p',
      sanctioned_kinds: ['object_storage'],
      capabilities: [],
      catalog: { aws_sqs_queue: null },
    } as unknown as Design;
    expect(() => compilePolicyData(design)).toThrow(
      expect.objectContaining({
        code: 'invalid_design',
        message: expect.stringMatching(/^the design: catalog\.aws_sqs_queue: /),
      }),
    );
    expect(() =>
      compilePolicyData({ package_id: 'P P', sanctioned_kinds: ['queuez'] } as unknown as Design),
    ).toThrow(
      expect.objectContaining({ code: 'invalid_design', message: expect.stringContaining('package_id') }),
    );
    expect(() => compilePolicyData(null as unknown as Design)).toThrow(
      expect.objectContaining({ code: 'invalid_design' }),
    );
    // Defaults apply as in a file: no capabilities and no catalog is a design.
    expect(
      compilePolicyData({ package_id: 'p', sanctioned_kinds: ['queue'] } as Design).capabilities,
    ).toEqual([]);
  });

  it('has an empty combined pattern when no capability depends on anything', () => {
    const data = compilePolicyData({ package_id: 'p', sanctioned_kinds: [], capabilities: [], catalog: {} });
    expect(data.dependency_pattern).toBe('');
  });
});
