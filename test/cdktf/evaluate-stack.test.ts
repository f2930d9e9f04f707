// The aspect's pure stack evaluation, without constructs: resources in, findings with outcomes out.
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateStack, type StackEvaluationInput } from '../../src/cdktf/evaluate-stack.js';
import { compilePolicyData } from '../../src/policy/data.js';
import { PolicyEngine } from '../../src/policy/engine.js';
import { TEST_DESIGN } from './helpers.js';

let base: StackEvaluationInput;

beforeAll(async () => {
  base = {
    engine: await PolicyEngine.load(),
    data: compilePolicyData(TEST_DESIGN),
    stackPath: 'main',
    resources: [
      { address: 'terraform_data.ok', type: 'terraform_data', name: 'ok', constructPath: 'main/ok' },
      { address: 'aws_sqs_queue.q', type: 'aws_sqs_queue', name: 'q', constructPath: 'main/q' },
    ],
    previous: [
      {
        address: 'terraform_data.ledger',
        type: 'terraform_data',
        name: 'ledger',
        constructPath: 'main/ledger',
      },
    ],
    acknowledgements: [],
    minSeverity: 'low',
    advisory: false,
  };
});

describe('evaluateStack', () => {
  it('finds an unsanctioned creation and a destroyed dependency, each on its construct path', () => {
    const { findings, counts } = evaluateStack(base);
    expect(findings.map((f) => [f.rule, f.constructPath, f.outcome])).toEqual([
      ['unsanctioned_creation', 'main/q', 'blocking'],
      ['capability_dependency_destroyed', 'main/ledger', 'blocking'],
    ]);
    expect(counts).toMatchObject({ resource_changes: 3, creations: 2, destructions: 1, findings: 2 });
  });

  it('gives each finding its outcome: advisory, below the threshold, acknowledged', () => {
    expect(evaluateStack({ ...base, advisory: true }).findings.map((f) => f.outcome)).toEqual([
      'advisory',
      'advisory',
    ]);
    // A destroyed dependency is critical: it still blocks at min severity critical.
    expect(evaluateStack({ ...base, minSeverity: 'critical' }).findings.map((f) => f.outcome)).toEqual([
      'below_threshold',
      'blocking',
    ]);
    const acknowledged = evaluateStack({
      ...base,
      acknowledgements: [{ rule: 'unsanctioned_creation', reason: 'trial', constructPath: 'main' }],
    }).findings[0];
    expect(acknowledged).toMatchObject({ outcome: 'acknowledged', reason: 'trial' });
  });

  it('does not check destructions without a previous synth', () => {
    const { findings } = evaluateStack({ ...base, previous: undefined });
    expect(findings.map((f) => f.rule)).toEqual(['unsanctioned_creation']);
  });
});
