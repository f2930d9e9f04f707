// Source locations in every report format, and every SARIF log here checked by Microsoft's SARIF multitool
// (schema, SARIF and GitHub rules) and against GitHub's documented upload requirements.
import { describe, expect, it } from 'vitest';
import type { SourceLocation } from '../../src/model/index.js';
import { type ReportSubject, renderGithubAnnotations, renderReport } from '../../src/report/index.js';
import { githubUploadProblems, multitoolErrors } from '../helpers/sarif.js';
import { evaluation, gate } from './fixtures.js';

const plain = { color: false };
const locations = new Map<string, SourceLocation>([
  ['aws_sqs_queue.jobs', { file: 'infra/queues.tf', line: 12 }],
  [
    'aws_db_instance.ledger',
    { file: 'infra/main.tf', line: 3, moduleCall: 'module.db', constructPath: 'app/ledger' },
  ],
]);
const located: ReportSubject = { kind: 'evaluation', result: evaluation(), locations };
const logs: Record<string, string> = {};
const sarifOf = (name: string, subject: ReportSubject) => {
  logs[name] = renderReport(subject, 'sarif', plain);
  return JSON.parse(logs[name]);
};

describe('source locations in the reports', () => {
  it('sarif: a repository-relative uri and the start line, beside the address as a logical location', () => {
    const log = sarifOf('located', located);
    const [queue, ledger] = log.runs[0].results;
    expect(queue.locations).toEqual([
      {
        physicalLocation: {
          artifactLocation: { uri: 'infra/queues.tf', uriBaseId: '%SRCROOT%' },
          region: { startLine: 12 },
        },
        logicalLocations: [
          { name: 'aws_sqs_queue.jobs', fullyQualifiedName: 'aws_sqs_queue.jobs', kind: 'resource' },
        ],
      },
    ]);
    expect(ledger.locations[0].physicalLocation.region.startLine).toBe(3);
    // The construct path comes from the synthesized JSON when --cdktf-stack gave none.
    expect(ledger.locations[0].logicalLocations[1]).toEqual({
      fullyQualifiedName: 'app/ledger',
      kind: 'module',
    });
    expect(log.runs[0].originalUriBaseIds['%SRCROOT%'].description.text).toMatch(/root of the repository/);
    expect(githubUploadProblems(log)).toEqual([]);
  });

  it('sarif: uris are percent-encoded relative references', () => {
    const odd = new Map([['aws_sqs_queue.jobs', { file: 'my infra/100%/q#1.tf', line: 1 }]]);
    const log = sarifOf('encoded', { kind: 'evaluation', result: evaluation(), locations: odd });
    expect(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe(
      'my%20infra/100%25/q%231.tf',
    );
  });

  it('sarif: an unplaced finding points at the fallback file (the plan) at line 1, else a directory, whole', () => {
    const some = new Map([['aws_sqs_queue.jobs', { file: 'main.tf', line: 5 }]]);
    const withPlan = sarifOf('fallback', {
      kind: 'evaluation',
      result: evaluation(),
      locations: some,
      fallbackFile: 'plans/plan.json',
    });
    expect(withPlan.runs[0].results[1].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'plans/plan.json', uriBaseId: '%SRCROOT%' },
      region: { startLine: 1 },
    });
    expect(githubUploadProblems(withPlan)).toEqual([]);
    // No plan file in the repository: the configuration's directory, as a whole (no region). It used to have
    // no physical location at all, which GitHub code scanning refuses.
    const inDirectory = sarifOf('directory', {
      kind: 'evaluation',
      result: evaluation(),
      locations: some,
      fallbackDirectory: 'stacks/app',
    });
    expect(inDirectory.runs[0].results[1].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'stacks/app/', uriBaseId: '%SRCROOT%' },
    });
    expect(githubUploadProblems(inDirectory)).toEqual([]);
    // Nothing known at all (a plan from stdin): the repository root.
    const bare = sarifOf('unplaced', { kind: 'evaluation', result: evaluation(), locations: some });
    expect(bare.runs[0].results[1].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: './', uriBaseId: '%SRCROOT%' },
    });
    expect(githubUploadProblems(bare)).toEqual([]);
    // The gate: drift findings on the design file (gate --design), else the repository root.
    const gateLog = sarifOf('gate', { kind: 'gate', result: gate() });
    expect(gateLog.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('./');
    const designed = sarifOf('gate-design', {
      kind: 'gate',
      result: gate(),
      fallbackFile: 'designs/app.yaml',
    });
    expect(designed.runs[0].results[0].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'designs/app.yaml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 1 },
    });
    expect(githubUploadProblems(gateLog)).toEqual([]);
    // The tool's version, for SARIF2005.
    expect(gateLog.runs[0].tool.driver).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('github annotations carry file= and line=', () => {
    const out = renderGithubAnnotations(located);
    expect(out).toContain(
      '::error file=infra/queues.tf,line=12,title=tfgate unsanctioned_creation (high)::aws_sqs_queue.jobs: ',
    );
    expect(out).toContain('::error file=infra/main.tf,line=3,title=tfgate capability_dependency_destroyed');
    const fallback = renderGithubAnnotations({
      kind: 'evaluation',
      result: evaluation(),
      fallbackFile: 'p,1.json',
    });
    expect(fallback).toContain('::error file=p%2C1.json,title=');
  });

  it('markdown and text add a location column only when there are locations; json adds source_locations', () => {
    const md = renderReport(located, 'markdown', plain);
    expect(md).toContain('| | Rule | Severity | Address | Location | Kind | Why |');
    expect(md).toContain('| `aws_sqs_queue.jobs` | `infra/queues.tf:12` |');
    expect(md).toContain('`infra/main.tf:3 (module.db)`');
    const text = renderReport(located, 'text', plain);
    expect(text).toMatch(/ADDRESS\s+LOCATION\s+KIND/);
    expect(text).toMatch(/aws_sqs_queue\.jobs\s+infra\/queues\.tf:12\s+queue/);
    expect(text).toMatch(/aws_db_instance\.ledger \(app\/ledger\)\s+infra\/main\.tf:3 \(module\.db\)/);
    expect(renderReport({ kind: 'evaluation', result: evaluation() }, 'text', plain)).not.toContain(
      'LOCATION',
    );
    expect(JSON.parse(renderReport(located, 'json', plain)).source_locations).toEqual(
      Object.fromEntries(locations),
    );
  });

  it('junit test cases carry file and line', () => {
    const junit = renderReport(located, 'junit', plain);
    expect(junit).toContain('name="aws_sqs_queue.jobs" file="infra/queues.tf" line="12">');
    expect(renderReport({ kind: 'evaluation', result: evaluation() }, 'junit', plain)).not.toContain(
      ' file=',
    );
  });

  it('every SARIF log above passes the SARIF multitool: the 2.1.0 schema, its SARIF and its GitHub rules', async () => {
    expect(Object.keys(logs)).toEqual([
      'located',
      'encoded',
      'fallback',
      'directory',
      'unplaced',
      'gate',
      'gate-design',
    ]);
    expect(await multitoolErrors(logs)).toEqual([]);
  }, 120_000);

  it('the multitool check can fail: a log against the schema is reported', async () => {
    const broken = JSON.parse(logs.located as string);
    broken.runs[0].results[0].locations[0].physicalLocation.region.startLine = 0;
    delete broken.runs[0].tool.driver.name;
    const errors = await multitoolErrors({ broken: JSON.stringify(broken) });
    expect(errors.join('\n')).toMatch(/broken\(.*startLine/);
    expect(errors.join('\n')).toMatch(/broken\(.*'name' is missing/);
  }, 120_000);
});
