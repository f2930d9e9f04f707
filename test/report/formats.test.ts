import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  colorEnabled,
  emitReports,
  type NoDecisionReport,
  RULES,
  renderGithubAnnotations,
  renderReport,
  reportTargets,
  reportTargetsFromSpecs,
} from '../../src/report/index.js';
import { terminalSafe } from '../../src/report/terminal-safe.js';
import { renderWithRealParsers, type XmlElement } from '../helpers/github-markdown.js';
import { githubUploadProblems, multitoolErrors } from '../helpers/sarif.js';
import { evaluation, gate, passingEvaluation } from './fixtures.js';

const plain = { color: false };

describe('json report', () => {
  it('is the contract evaluation shape, keys in contract order', () => {
    const result = evaluation();
    const parsed = JSON.parse(renderReport({ kind: 'evaluation', result }, 'json', plain));
    expect(Object.keys(parsed)).toEqual(['package_id', 'decision', 'min_severity', 'findings', 'counts']);
    expect(parsed).toEqual(result);
  });

  it('is the contract gate shape, and marks a status-only decision', () => {
    const result = gate();
    const parsed = JSON.parse(renderReport({ kind: 'gate', result }, 'json', plain));
    expect(Object.keys(parsed)).toEqual([
      'package_id',
      'decision',
      'min_severity',
      'refreshed',
      'drift_checked_at',
      'blocking',
      'acknowledged',
      'counts',
    ]);
    const statusOnly = JSON.parse(
      renderReport({ kind: 'gate', result, detailsUnavailable: 'x' }, 'json', plain),
    );
    expect(statusOnly.details_available).toBe(false);
  });
});

describe('markdown report', () => {
  it('has a summary line, an escaped table and folded details', () => {
    const out = renderReport({ kind: 'evaluation', result: evaluation() }, 'markdown', plain);
    expect(out.split('\n')[0]).toMatch(/^### ❌ tfgate plan evaluation: FAIL: 2 failures/);
    expect(out).toContain('| | Rule | Severity | Address | Kind | Why |');
    // A pipe in a message must not split the cell.
    expect(out).toContain('creates a queue \\| kind not sanctioned');
    expect(out).toContain('<details><summary>Rules and how to fix</summary>');
  });

  it('folds acknowledged gate findings with who and why', () => {
    const out = renderReport({ kind: 'gate', result: gate() }, 'markdown', plain);
    expect(out).toContain('<details><summary>1 acknowledged (never block)</summary>');
    expect(out).toContain('migration, ends in May');
  });

  it('shows a clean pass', () => {
    const out = renderReport({ kind: 'evaluation', result: passingEvaluation() }, 'markdown', plain);
    expect(out).toMatch(/^### ✅ tfgate plan evaluation: PASS/);
    expect(out).not.toContain('| Rule |');
  });
});

describe('sarif report', () => {
  it('is SARIF 2.1.0 with rules from the rule table and results located by address', () => {
    const log = JSON.parse(renderReport({ kind: 'evaluation', result: evaluation() }, 'sarif', plain));
    expect(log.version).toBe('2.1.0');
    const run = log.runs[0];
    const ruleIds = run.tool.driver.rules.map((r: { id: string }) => r.id);
    expect(ruleIds).toEqual(['unsanctioned_creation', 'capability_dependency_destroyed']);
    expect(run.tool.driver.rules[1].shortDescription.text).toBe(RULES.capability_dependency_destroyed.title);
    expect(run.results).toHaveLength(2);
    const [first] = run.results;
    expect(first.ruleId).toBe('unsanctioned_creation');
    expect(run.tool.driver.rules[first.ruleIndex].id).toBe(first.ruleId);
    expect(first.level).toBe('error');
    expect(first.locations[0].logicalLocations[0].fullyQualifiedName).toBe('aws_sqs_queue.jobs');
    expect(first.partialFingerprints.tfgateFindingId).toBe('f-1');
  });

  it('marks below-threshold findings as warnings and acknowledged ones as suppressed notes', () => {
    const evalLog = JSON.parse(
      renderReport({ kind: 'evaluation', result: evaluation({ min_severity: 'critical' }) }, 'sarif', plain),
    );
    expect(evalLog.runs[0].results.map((r: { level: string }) => r.level)).toEqual(['warning', 'error']);
    const gateLog = JSON.parse(renderReport({ kind: 'gate', result: gate() }, 'sarif', plain));
    const ack = gateLog.runs[0].results[1];
    expect(ack.level).toBe('note');
    expect(ack.suppressions[0]).toMatchObject({ kind: 'external', justification: 'migration, ends in May' });
  });
});

describe('junit report', () => {
  it('has one failing test case per blocking finding and passing cases for clean rules', () => {
    const out = renderReport(
      { kind: 'evaluation', result: evaluation({ min_severity: 'critical' }) },
      'junit',
      plain,
    );
    expect(out).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect(out).toContain('<testsuites name="tfgate" tests="2" failures="1" errors="0" skipped="0">');
    expect(out.match(/<failure /g)).toHaveLength(1);
    expect(out).toContain('name="aws_db_instance.ledger"');
  });

  it('escapes XML and lists a passing case per rule when nothing is found', () => {
    const result = evaluation();
    result.findings[0]!.message = 'bad <tag> & "quote"';
    const out = renderReport({ kind: 'evaluation', result }, 'junit', plain);
    expect(out).toContain('bad &lt;tag&gt; &amp; &quot;quote&quot;');
    const pass = renderReport({ kind: 'evaluation', result: passingEvaluation() }, 'junit', plain);
    expect(pass).toContain('tests="2" failures="0"');
    expect(pass).toContain(
      '<testcase classname="tfgate.unsanctioned_creation" name="unsanctioned_creation"/>',
    );
  });

  it('skips acknowledged drift findings with the reason', () => {
    const out = renderReport({ kind: 'gate', result: gate() }, 'junit', plain);
    expect(out).toContain('failures="1"');
    expect(out).toContain('skipped="1"');
    expect(out).toContain('<skipped message="acknowledged by ops-key: migration, ends in May"/>');
  });
});

describe('github annotations', () => {
  it('emits the decision first, then one error per blocking finding, escaped', () => {
    const result = evaluation();
    result.findings[0]!.message = 'line one\nline two: 100%';
    const out = renderGithubAnnotations({ kind: 'evaluation', result });
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^::error title=tfgate plan evaluation::FAIL: 2 failures/);
    // The critical destruction first, then the high creation.
    expect(lines[1]).toMatch(/^::error title=tfgate capability_dependency_destroyed \(critical\)::/);
    expect(lines[2]).toBe(
      '::error title=tfgate unsanctioned_creation (high)::aws_sqs_queue.jobs: line one%0Aline two: 100%25',
    );
  });

  it('stays within the 10 annotations of a level GitHub shows per step, and says how many it left out', () => {
    const base = evaluation().findings[0]!;
    const findings = Array.from({ length: 25 }, (_, i) => ({ ...base, id: `f-${i}`, address: `q.q${i}` }));
    const lines = renderGithubAnnotations({ kind: 'evaluation', result: evaluation({ findings }) })
      .trim()
      .split('\n');
    const errors = lines.filter((l) => l.startsWith('::error '));
    expect(errors).toHaveLength(10);
    expect(errors[0]).toMatch(/title=tfgate plan evaluation::FAIL: 25 failures/);
    expect(errors.slice(1, 9).map((l) => /::(q\.q\d+):/.exec(l)?.[1])).toEqual(
      Array.from({ length: 8 }, (_, i) => `q.q${i}`),
    );
    expect(errors[9]).toBe(
      '::error title=tfgate%3A more findings::17 more findings of this level not annotated (GitHub shows 10 per level and step); the report lists every finding',
    );
    // Exactly at the budget, nothing is left out and no such line is written.
    const nine = evaluation({ findings: findings.slice(0, 9) });
    const exact = renderGithubAnnotations({ kind: 'evaluation', result: nine }).trim().split('\n');
    expect(exact).toHaveLength(10);
    expect(exact.join('\n')).not.toContain('more findings');
  });

  it('annotates the most severe findings first within a level (critical destructions before high creations)', () => {
    const base = evaluation().findings[0]!;
    const high = Array.from({ length: 17 }, (_, i) => ({ ...base, id: `h-${i}`, address: `q.high${i}` }));
    const critical = Array.from({ length: 16 }, (_, i) => ({
      ...base,
      id: `c-${i}`,
      rule: 'capability_dependency_destroyed' as const,
      severity: 'critical' as const,
      address: `db.critical${i}`,
    }));
    const lines = renderGithubAnnotations({
      kind: 'evaluation',
      result: evaluation({ findings: [...high, ...critical] }),
    })
      .trim()
      .split('\n');
    const shown = lines.slice(1, 9).map((l) => /::([a-z]+\.[a-z]+\d+):/.exec(l)?.[1]);
    expect(shown).toEqual(Array.from({ length: 8 }, (_, i) => `db.critical${i}`));
  });

  it('shows control and bidirectional characters from a plan as \\u escapes; a line break stays %0A', () => {
    const result = evaluation();
    result.findings[0]!.address = 'aws_sqs_queue.q["\u001b[31m\u202e\r"]';
    result.findings[0]!.message = 'a\r\nb';
    const lines = renderGithubAnnotations({ kind: 'evaluation', result }).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe(
      '::error title=tfgate unsanctioned_creation (high)::aws_sqs_queue.q["\\u001b[31m\\u202e\\u000d"]: a%0Ab',
    );
  });

  it('many plans: the combined decision and every root without a decision come before the findings', () => {
    const base = evaluation().findings[0]!;
    const findings = Array.from({ length: 12 }, (_, i) => ({ ...base, id: `f-${i}`, address: `q.q${i}` }));
    const lines = renderGithubAnnotations({
      kind: 'roots',
      decision: 'no_decision',
      minSeverity: 'high',
      roots: [
        {
          root: 'app',
          plan: 'app/plan.json',
          subject: { kind: 'evaluation', result: evaluation({ findings }) },
        },
        { root: 'net', plan: 'net/plan.json', noDecision: { code: 'invalid_plan', message: 'not a plan' } },
      ],
    })
      .trim()
      .split('\n');
    expect(lines[0]).toMatch(/^::error title=tfgate plan evaluation::/);
    expect(lines[1]).toBe('::error title=tfgate net%3A no decision::not a plan');
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(10);
    expect(lines.at(-1)).toMatch(/^::error title=tfgate%3A more findings::5 more findings/);
  });

  it('downgrades an advisory block to warnings', () => {
    const out = renderGithubAnnotations({ kind: 'evaluation', result: evaluation(), advisory: true });
    expect(out).not.toContain('::error');
    expect(out).toContain('::warning title=tfgate unsanctioned_creation (high)::');
  });
});

describe('colour and outputs', () => {
  it('colours only a TTY without NO_COLOR', () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
  });

  it('pairs --format and --output by position and rejects extra outputs', () => {
    expect(reportTargets([], [])).toEqual([{ format: 'text' }]);
    expect(reportTargets(['text', 'sarif'], ['-', 'r.sarif'])).toEqual([
      { format: 'text' },
      { format: 'sarif', path: 'r.sarif' },
    ]);
    expect(() => reportTargets(['text'], ['a', 'b'])).toThrow(/--output/);
    // Two reports, one file: which one goes there is a guess (it used to be the first, JSON into out.sarif).
    expect(() => reportTargets(['json', 'sarif'], ['out.sarif'])).toThrow(/pair one to one/);
    expect(reportTargets(['sarif'], [])).toEqual([{ format: 'sarif' }]);
    expect(reportTargetsFromSpecs(['sarif=out.sarif', 'text', 'json=-'])).toEqual([
      { format: 'sarif', path: 'out.sarif' },
      { format: 'text' },
      { format: 'json' },
    ]);
    expect(() => reportTargetsFromSpecs(['yaml=a'])).toThrow(/unknown report format "yaml"/);
    expect(() => reportTargets(['yaml'], [])).toThrow(/unknown report format "yaml"/);
  });

  it('writes files whole, without colour, and adds annotations only under GitHub Actions', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tfgate-report-'));
    let stdout = '';
    const sink = { write: (s: string) => (stdout += s) };
    const subject = { kind: 'evaluation', result: evaluation() } as const;
    await emitReports(subject, [{ format: 'text' }, { format: 'junit', path: join(dir, 'r.xml') }], {
      stdout: sink,
      color: true,
      env: { GITHUB_ACTIONS: 'true' },
    });
    expect(stdout).toContain('\u001b[');
    expect(stdout).toContain('::error title=');
    const file = await readFile(join(dir, 'r.xml'), 'utf8');
    expect(file).not.toContain('\u001b[');
    expect(await readdir(dir)).toEqual(['r.xml']);
    stdout = '';
    await emitReports(subject, [{ format: 'text' }], { stdout: sink, color: false, env: {} });
    expect(stdout).not.toContain('::error');
  });
});

describe('construct paths (tfgate apply --cdktf-stack)', () => {
  const result = evaluation();
  const constructPaths = new Map([['aws_sqs_queue.jobs', 'storage/audit/queue']]);
  const subject = { kind: 'evaluation' as const, result, constructPaths };

  it('text and markdown show the construct path beside the address', () => {
    expect(renderReport(subject, 'text', plain)).toMatch(/aws_sqs_queue\.jobs \(storage\/audit\/queue\)/);
    expect(renderReport(subject, 'markdown', plain)).toContain('`aws_sqs_queue.jobs`<br>storage/audit/queue');
  });

  it('json adds construct_paths, leaving the contract fields as they are; sarif names the construct', () => {
    const parsed = JSON.parse(renderReport(subject, 'json', plain));
    expect(parsed.construct_paths).toEqual({ 'aws_sqs_queue.jobs': 'storage/audit/queue' });
    expect(parsed.findings).toEqual(result.findings);
    const sarif = JSON.parse(renderReport(subject, 'sarif', plain));
    const located = sarif.runs[0].results.find(
      (r: { locations: Array<{ logicalLocations: Array<{ fullyQualifiedName: string }> }> }) =>
        r.locations[0]?.logicalLocations.some((l) => l.fullyQualifiedName === 'storage/audit/queue'),
    );
    expect(located).toBeDefined();
  });
});

describe('one plan or one gate without a decision (the report files on exit 4)', () => {
  const undecided = (extra: Partial<NoDecisionReport> = {}): NoDecisionReport => ({
    kind: 'no-decision',
    of: 'evaluation',
    packageId: 'payments',
    minSeverity: 'high',
    error: { code: 'invalid_plan', message: 'plan.json is not JSON', hint: 'give show -json output' },
    ...extra,
  });

  it('json: decision "no_decision" and the error, as a root without a decision among many plans', () => {
    expect(JSON.parse(renderReport(undecided(), 'json', plain))).toEqual({
      package_id: 'payments',
      decision: 'no_decision',
      min_severity: 'high',
      error: { code: 'invalid_plan', message: 'plan.json is not JSON', hint: 'give show -json output' },
    });
    const noPackage = JSON.parse(renderReport(undecided({ packageId: undefined }), 'json', plain));
    expect(Object.keys(noPackage)).toEqual(['decision', 'min_severity', 'error']);
  });

  it('text and markdown say NO DECISION with the reason and the hint (never PASS); advisory says it went on', () => {
    expect(renderReport(undecided(), 'text', plain)).toBe(
      'NO DECISION: plan.json is not JSON\nHint: give show -json output\n',
    );
    expect(renderReport(undecided({ advisory: true }), 'text', plain)).toMatch(
      /^ADVISORY: no decision \(plan\.json is not JSON\); not enforced because --advisory was given\n/,
    );
    const markdown = renderReport(undecided({ of: 'gate' }), 'markdown', plain);
    expect(markdown.split('\n')[0]).toBe('### ❌ tfgate gate (package `payments`): no decision');
    expect(markdown).toContain('Reason: plan.json is not JSON<br>Hint: give show -json output');
    expect(markdown).not.toMatch(/PASS|✅/);
  });

  it('junit: one errored test case; sarif: no results, an invocation that failed with the reason', () => {
    const junit = renderReport(undecided(), 'junit', plain);
    expect(junit).toContain('<testsuites name="tfgate" tests="1" failures="0" errors="1" skipped="0">');
    expect(junit).toContain('<error message="no decision: plan.json is not JSON" type="invalid_plan"/>');
    const sarif = JSON.parse(renderReport(undecided(), 'sarif', plain));
    expect(sarif.runs[0].results).toEqual([]);
    expect(sarif.runs[0].invocations[0]).toMatchObject({
      executionSuccessful: false,
      toolExecutionNotifications: [
        { level: 'error', message: { text: 'no decision: plan.json is not JSON' } },
      ],
      properties: { decision: 'no_decision', min_severity: 'high' },
    });
    expect(githubUploadProblems(sarif)).toEqual([]);
  });

  it('a hostile reason is shown as given, never as markup (cmark-gfm, expat)', async () => {
    const message = 'bad </testcase> <b>x</b> | `y` @team\n::error::z \u001b[31m';
    const report = undecided({ error: { code: 'x', message } });
    const [html, xml] = await renderWithRealParsers([
      { kind: 'markdown', text: renderReport(report, 'markdown', plain) },
      { kind: 'xml', text: renderReport(report, 'junit', plain) },
    ]);
    expect(html).not.toMatch(/<b>|<code>y|<\/testcase>/);
    expect(renderReport(report, 'text', plain)).not.toContain('\u001b');
    const error = (xml as XmlElement[]).find(([tag]) => tag === 'error');
    expect(error?.[1].message).toBe(`no decision: ${terminalSafe(message)}`);
  });
});

describe('every SARIF log these tests render', () => {
  it('passes the SARIF multitool: the 2.1.0 schema, its SARIF rules and its GitHub rules', async () => {
    const sarif = (subject: Parameters<typeof renderReport>[0]) => renderReport(subject, 'sarif', plain);
    const errors = await multitoolErrors({
      evaluation: sarif({ kind: 'evaluation', result: evaluation() }),
      critical: sarif({ kind: 'evaluation', result: evaluation({ min_severity: 'critical' }) }),
      passing: sarif({ kind: 'evaluation', result: passingEvaluation() }),
      gate: sarif({ kind: 'gate', result: gate() }),
      constructs: sarif({
        kind: 'evaluation',
        result: evaluation(),
        constructPaths: new Map([['aws_sqs_queue.jobs', 'storage/audit/queue']]),
      }),
      undecided: sarif({
        kind: 'no-decision',
        of: 'gate',
        packageId: 'payments',
        minSeverity: 'low',
        error: { code: 'service_unreachable', message: 'could not reach the tfgate service' },
      }),
    });
    expect(errors).toEqual([]);
  }, 120_000);
});
