import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { evaluation, gate, passingEvaluation } from './fixtures.js';

const plain = { color: false };

describe('text report (Atlantis custom_policy_check reads it)', () => {
  it('starts a block with FAIL and says "N failures"', () => {
    const out = renderReport({ kind: 'evaluation', result: evaluation() }, 'text', plain);
    expect(out.split('\n')[0]).toMatch(/^FAIL: 2 failures, 12 resource changes evaluated/);
    expect(out).toContain('aws_sqs_queue.jobs');
    expect(out).toContain('capability_dependency_destroyed');
    expect(out).toContain('How to fix:');
  });

  it('counts only findings at or above the threshold as failures', () => {
    const result = evaluation({ min_severity: 'critical' });
    const out = renderReport({ kind: 'evaluation', result }, 'text', plain);
    expect(out.split('\n')[0]).toMatch(/^FAIL: 1 failure, /);
    // Atlantis's reading of a policy failure (Atlantis 0.47 doPolicyCheck) still matches the singular.
    expect(/[1-9][0-9]* failure/.test(out)).toBe(true);
    // The blocking row is starred, the other is not.
    expect(out).toMatch(/^\* capability_dependency_destroyed/m);
    expect(out).toMatch(/^ {2}unsanctioned_creation/m);
  });

  it('never leaves a pass empty, and a pass never contains "fail" (Atlantis searches for it)', () => {
    const out = renderReport({ kind: 'evaluation', result: passingEvaluation() }, 'text', plain);
    expect(out.trim()).not.toBe('');
    expect(out).toMatch(/^PASS: 0 blocking findings, 12 resource changes evaluated/);
    expect(out.toLowerCase()).not.toContain('fail');
  });

  it('says loudly that an advisory block was not enforced, without the failure token', () => {
    const out = renderReport({ kind: 'evaluation', result: evaluation(), advisory: true }, 'text', plain);
    expect(out).toMatch(/^ADVISORY: would block on 2 findings/);
    expect(out).toContain('not enforced because --advisory was given');
    expect(out.split('\n')[0]?.toLowerCase()).not.toContain('fail');
  });

  it('renders a gate block with blocking and acknowledged findings and the audit trail', () => {
    const out = renderReport({ kind: 'gate', result: gate() }, 'text', plain);
    expect(out).toMatch(/^FAIL: 1 failure, open drift findings at or above high/);
    expect(out).toContain('Blocking drift findings:');
    expect(out).toContain('aws_db_instance.ledger');
    expect(out).toContain('Acknowledged (never block; recorded for audit):');
    expect(out).toContain('by ops-key (default) at 2025-01-01T00:00:00Z: migration, ends in May');
    expect(out).toContain('drift checked at 2025-01-02T03:04:05Z');
    // Judged on an earlier check (scheduled, or a refresh before): not said to be a scheduled one.
    expect(out).toContain(
      'Drift: drift checked at 2025-01-02T03:04:05Z (the last check: --refresh checks now).',
    );
    const fresh = renderReport({ kind: 'gate', result: gate({ refreshed: true }) }, 'text', plain);
    expect(fresh).toContain('(fresh check for this call)');
  });

  it('says an expired acknowledgement left its finding open, not that it blocks: below the threshold it does not', () => {
    const expired = {
      finding_id: 'd-9',
      rule: 'unsanctioned_resource' as const,
      address: 'aws_sns_topic.low',
      by: 'ops-key',
      account: 'default',
      at: '2025-01-01T00:00:00Z',
      reason: 'trial',
      expires_at: '2025-01-02T00:00:00Z',
    };
    const out = renderReport(
      { kind: 'gate', result: gate({ decision: 'pass', blocking: [], expired_acknowledgements: [expired] }) },
      'text',
      plain,
    );
    expect(out).toMatch(/^PASS/);
    expect(out).toContain('Expired acknowledgements (their findings are open again):');
    expect(out).not.toContain('block again');
  });

  it('renders a status-only block (no readable body) as FAIL with the reason', () => {
    const result = gate({
      blocking: [],
      acknowledged: [],
      counts: { open: 0, acknowledged: 0, blocking: 0 },
    });
    const out = renderReport(
      {
        kind: 'gate',
        result,
        detailsUnavailable: 'the service answered HTTP 409 with no body tfgate could read',
      },
      'text',
      plain,
    );
    expect(out).toMatch(/^FAIL: gate blocked .*HTTP 409/);
  });

  it('never prints "0 failures" for a block that came without findings (a renderer fed a bare 409)', () => {
    const result = evaluation({ findings: [] });
    const out = renderReport({ kind: 'evaluation', result }, 'text', plain);
    expect(out).toMatch(
      /^FAIL: plan evaluation blocked .*no blocking findings were reported with the decision/,
    );
    expect(out).not.toContain('0 failures');
  });

  it('uses ANSI colour only when asked', () => {
    const subject = { kind: 'evaluation', result: evaluation() } as const;
    expect(renderReport(subject, 'text', plain)).not.toContain('\u001b[');
    expect(renderReport(subject, 'text', { color: true })).toContain('\u001b[31m');
  });

  it('shows control characters and bidi overrides from plans and reasons as escapes, never sends them', () => {
    const hostile = gate({
      blocking: [
        {
          ...gate().blocking[0]!,
          address: 'aws_db_instance.ledger\u001b]8;;http://evil\u0007\rPASS',
          message: 'gone\u001b[2J',
        },
      ],
    });
    hostile.acknowledged[0]!.acknowledgement!.reason = 'ok\u202etxt.exe\nFAKE: line';
    const out = renderReport({ kind: 'gate', result: hostile }, 'text', plain);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(out).toContain('aws_db_instance.ledger\\u001b]8;;http://evil\\u0007\\u000dPASS');
    expect(out).toContain('ok\\u202etxt.exe\\u000aFAKE: line');
    // Colour still works: the painter's own escapes are added after the view is made safe.
    expect(renderReport({ kind: 'gate', result: hostile }, 'text', { color: true })).toContain('\u001b[');
  });
});
