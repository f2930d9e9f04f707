// Plan findings a plan acknowledgement waives are reported, never counted as failures; expired ones are named.
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { evaluation } from './fixtures.js';

const ack = { by: 'platform', account: 'default', at: '2026-11-01T00:00:00.000Z', reason: 'OPS-7' };

describe('reports of plan acknowledgements', () => {
  it('shows a waived finding as acknowledged with its expiry, and an expired one as blocking again', () => {
    const base = evaluation();
    const result = evaluation({
      findings: [
        { ...base.findings[0]!, acknowledgement: { ...ack, expires_at: '2026-12-31T00:00:00.000Z' } },
        base.findings[1]!,
      ],
      expired_acknowledgements: [
        {
          finding_id: base.findings[1]!.id,
          rule: 'capability_dependency_destroyed',
          address: 'aws_db_instance.ledger',
          ...ack,
          expires_at: '2026-11-20T00:00:00.000Z',
        },
      ],
    });
    const out = renderReport({ kind: 'evaluation', result }, 'text', { color: false });
    expect(out.split('\n')[0]).toMatch(/^FAIL: 1 failure, /);
    expect(out).toContain(
      'unsanctioned_creation high aws_sqs_queue.jobs by platform (default) at 2026-11-01T00:00:00.000Z: OPS-7 (until 2026-12-31T00:00:00.000Z)',
    );
    expect(out).toContain(
      'capability_dependency_destroyed aws_db_instance.ledger: expired at 2026-11-20T00:00:00.000Z',
    );
    const sarif = JSON.parse(renderReport({ kind: 'evaluation', result }, 'sarif', { color: false })) as {
      runs: Array<{ results: Array<{ level: string }> }>;
    };
    expect(sarif.runs[0]!.results.map((r) => r.level).sort()).toEqual(['error', 'note']);
  });
});
