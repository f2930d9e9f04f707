// The policy's address matchers (compileAddressMatcher) must decide exactly as regex.match on the entry's
// pattern, which is what the policy did before them and what it still does for data without matchers.
// The oracle is that regex path in the same policy.wasm: the same data with the matchers taken out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlanInput } from '../../src/model/index.js';
import { compileAddressMatcher, compilePolicyData, type PolicyData } from '../../src/policy/data.js';
import { PolicyEngine } from '../../src/policy/engine.js';

const engine = PolicyEngine.loadSync();

function withoutMatchers(data: PolicyData): PolicyData {
  return { ...data, capabilities: data.capabilities.map(({ matchers: _, ...c }) => c) };
}

function designData(entries: readonly string[]): PolicyData {
  return compilePolicyData({
    package_id: 'p',
    sanctioned_kinds: [],
    capabilities: entries.map((entry, i) => ({ name: `c${i}`, depends_on: [entry] })),
    catalog: { terraform_data: 'generic_data' },
  });
}

function destructions(addresses: readonly string[]): PlanInput {
  return {
    resource_changes: addresses.map((address) => ({
      address,
      mode: 'managed',
      type: 'terraform_data',
      name: 'x',
      change: { actions: ['delete'] },
    })),
  } as PlanInput;
}

/** Plan findings (address -> capabilities) and drift's missing entries, or the error both must give. */
function decide(data: PolicyData, addresses: readonly string[]): unknown {
  try {
    const plan = engine.evaluatePlan(data, destructions(addresses), { now: new Date(0) });
    const drift = engine.evaluateDrift(data, {
      resources: addresses.map((address) => ({ address, mode: 'managed', type: 'terraform_data' })),
    } as never);
    return {
      plan: plan.findings.map((f) => [f.address, f.capability]),
      missing: drift.filter((d) => d.rule === 'capability_dependency_missing').map((d) => d.address),
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

// Pieces of both: words, segment dots, globs, module calls, brackets and quotes.
const COMMON = ['module.', 'mod', 'a', 'b_1', '.', '*', '[', ']', '[0]', '-', 'ü', 'module.q.'];
const entryPiece = fc.constantFrom(...COMMON, '["', '"]', '\\"');
// Addresses add instance keys, and characters RE2's `.` does not match (newline) or JavaScript's does not.
const addressPiece = fc.constantFrom(
  ...COMMON,
  '[12]',
  '["k"]',
  '["a\\"b"]',
  '["x.y"]',
  '"',
  '\\',
  '\n',
  '\r',
  '\u2028',
  'module.q[1].',
);
const entry = fc
  .array(entryPiece, { minLength: 1, maxLength: 6 })
  .map((p) => p.join(''))
  .filter((e) => /^\S+$/.test(e));

describe('address matchers', () => {
  it('decide exactly as the regular expressions on chosen entries and hostile addresses', () => {
    const entries = [
      'aws_db_instance.ledger',
      'aws_db_instance.*',
      'module.svc_7.*',
      'module.svc_3*.aws_sqs_queue.*',
      'module.queue.*',
      'module.app.module.db.aws_db_instance.main',
      'aws_s3_bucket.logs[0]',
      'aws_s3_bucket.by_name["*"]',
      '*.ledger',
      '*',
      'a*b*c*d',
      'aws_lambda_function.fn_(v2)+',
    ];
    const addresses = [
      'aws_db_instance.ledger',
      'aws_db_instance.ledger[0]',
      'aws_db_instance.ledger["a\\"]"]',
      'aws_db_instance.ledger["a\nb"]',
      'aws_db_instance.ledger\n',
      'aws_db_instance.ledger2',
      'module.svc_7.x.y',
      'module.svc_7["k"].x',
      'module.svc_7[0]x',
      'module.svc_7.x\ny',
      'module.svc_70.x',
      'module.svc_3.module.i.aws_sqs_queue.q',
      'module.svc_3x.aws_sqs_queue.',
      'module.svc_3.aws_sqs_queue',
      'module.svc_3.x\n.aws_sqs_queue.q',
      'module.queue.a',
      'module.queues.a',
      'module.app[1].module.db["x"].aws_db_instance.main[0]',
      'aws_s3_bucket.logs[0]',
      'aws_s3_bucket.by_name["a"]',
      'x.ledger',
      'abcd',
      'abxcxd',
      'a\u2028bcd',
      'aws_lambda_function.fn_(v2)+',
    ];
    const data = designData(entries);
    expect(data.capabilities.filter((c) => c.matchers?.[0]?.parts !== undefined).length).toBeGreaterThan(6);
    const fast = decide(data, addresses);
    expect(fast).toEqual(decide(withoutMatchers(data), addresses));
    expect((fast as { plan: unknown[] }).plan.length).toBeGreaterThan(15);
    // An empty address is no decision either way: terraform never writes one.
    expect(decide(data, [''])).toEqual({ error: expect.stringContaining('is not as terraform writes it') });
    expect(decide(withoutMatchers(data), [''])).toEqual(decide(data, ['']));
    // A lone surrogate is no decision either way: opa's wasm JSON parser refuses it.
    expect(decide(data, ['\ud800'])).toEqual({ error: expect.stringContaining('illegal string escape') });
    expect(decide(withoutMatchers(data), ['\ud800'])).toEqual(decide(data, ['\ud800']));
  });

  it('decide exactly as the regular expressions on generated entries and addresses', () => {
    fc.assert(
      fc.property(
        fc.array(entry, { minLength: 1, maxLength: 4 }),
        fc.array(
          fc.array(addressPiece, { maxLength: 7 }).map((p) => p.join('')),
          { minLength: 1, maxLength: 12 },
        ),
        (entries, addresses) => {
          const data = designData(entries);
          // Addresses built from the entries themselves, so that many match.
          const near = entries.flatMap((e) => [
            e.replaceAll('*', 'x'),
            e.replaceAll('*', ''),
            e.replaceAll('*', '\n'),
            `${e}[0]`,
          ]);
          const all = [...addresses, ...near];
          expect(decide(data, all)).toEqual(decide(withoutMatchers(data), all));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('use string matching for literals, prefixes and module calls, the pattern only past an instance key', () => {
    expect(compileAddressMatcher('aws_db_instance.ledger')).toEqual({
      prefix: 'aws_db_instance.ledger',
      parts: ['aws_db_instance.ledger'],
      key_prefix: 'aws_db_instance.ledger[',
    });
    expect(compileAddressMatcher('aws_db_instance.*')).toEqual({
      prefix: 'aws_db_instance.',
      parts: ['aws_db_instance.', ''],
    });
    expect(compileAddressMatcher('module.svc_7.*')).toEqual({
      prefix: 'module.svc_7',
      parts: ['module.svc_7.', ''],
      key_prefix: 'module.svc_7[',
    });
    expect(compileAddressMatcher('module.a*.b.*')).toEqual({
      prefix: 'module.a',
      parts: ['module.a', '.b.', ''],
    });
    expect(compileAddressMatcher('module.app.module.db.x.y')).toEqual({ prefix: 'module.app' });
    expect(compileAddressMatcher('a*b*c*d')).toEqual({ prefix: 'a' });
  });
});
