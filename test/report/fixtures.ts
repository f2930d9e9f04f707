import type { EvaluationResult, GateResult } from '../../src/model/index.js';

/** A blocked evaluation; `counts.findings` follows the findings given, as a service's does. */
export function evaluation(overrides: Partial<EvaluationResult> = {}): EvaluationResult {
  const base: EvaluationResult = {
    package_id: 'payments',
    decision: 'block',
    min_severity: 'high',
    findings: [
      {
        id: 'f-1',
        rule: 'unsanctioned_creation',
        severity: 'high',
        address: 'aws_sqs_queue.jobs',
        type: 'aws_sqs_queue',
        kind: 'queue',
        actions: ['create'],
        message: 'creates a queue | kind not sanctioned by the design',
      },
      {
        id: 'f-2',
        rule: 'capability_dependency_destroyed',
        severity: 'critical',
        address: 'aws_db_instance.ledger',
        type: 'aws_db_instance',
        kind: 'relational_database',
        actions: ['delete'],
        capability: 'ledger',
        message: 'destroys a resource capability ledger depends on',
      },
    ],
    counts: {
      resource_changes: 12,
      creations: 4,
      destructions: 1,
      unrecognized: 2,
      findings: 2,
      updates: 3,
      reads: 0,
      imports: 0,
      forgets: 0,
      no_ops: 2,
    },
  };
  const findings = overrides.findings ?? base.findings;
  return { ...base, ...overrides, counts: overrides.counts ?? { ...base.counts, findings: findings.length } };
}

export function passingEvaluation(): EvaluationResult {
  const base = evaluation();
  return {
    ...base,
    decision: 'pass',
    findings: [],
    counts: { ...base.counts, findings: 0 },
  };
}

/** A blocked gate; its counts follow the findings given, as a service's do. */
export function gate(overrides: Partial<GateResult> = {}): GateResult {
  const base: GateResult = {
    package_id: 'payments',
    decision: 'block',
    min_severity: 'high',
    refreshed: false,
    drift_checked_at: '2025-01-02T03:04:05Z',
    blocking: [
      {
        id: 'd-1',
        rule: 'capability_dependency_missing',
        severity: 'critical',
        address: 'aws_db_instance.ledger',
        capability: 'ledger',
        message: 'no observed resource matches aws_db_instance.ledger',
        status: 'open',
      },
    ],
    acknowledged: [
      {
        id: 'd-2',
        rule: 'unsanctioned_resource',
        severity: 'high',
        address: 'aws_sns_topic.alerts',
        type: 'aws_sns_topic',
        kind: 'topic',
        message: 'an observed topic is not sanctioned',
        status: 'acknowledged',
        acknowledgement: {
          by: 'ops-key',
          account: 'default',
          at: '2025-01-01T00:00:00Z',
          reason: 'migration, ends in May',
        },
      },
    ],
    counts: { open: 1, acknowledged: 1, blocking: 1 },
  };
  const blocking = overrides.blocking ?? base.blocking;
  const acknowledged = overrides.acknowledged ?? base.acknowledged;
  const open = [...blocking, ...acknowledged].filter((f) => f.status === 'open').length;
  const counts = { open, acknowledged: acknowledged.length, blocking: blocking.length };
  return { ...base, ...overrides, counts: overrides.counts ?? counts };
}
