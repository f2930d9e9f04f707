// JUnit XML for CI test tabs: one test case per finding, failures for blocking ones; a clean rule passes.
import type { ReportSubject } from './subject.js';
import { terminalSafe, visibleEscape } from './terminal-safe.js';
import { decisionLine, type ReportView, viewOf } from './view.js';

/**
 * Text for an attribute or an element. Control and bidirectional characters become visible \u escapes, as in
 * the text report: XML 1.0 forbids most of them even escaped, and a CI test tab should show what was given.
 * U+FFFE and U+FFFF are not XML characters either.
 */
export function xml(text: string): string {
  return terminalSafe(text)
    .replace(/[\ufffe\uffff]/g, visibleEscape)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function renderJunit(subject: ReportSubject): string {
  const view = viewOf(subject);
  const suite = junitSuite(view, `tfgate ${view.label} ${view.packageId}`);
  return junitDocument([suite]);
}

export interface JunitSuite {
  lines: string[];
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

/** The whole document: <testsuites> with the totals of its suites. */
export function junitDocument(suites: readonly JunitSuite[]): string {
  const total = (key: 'tests' | 'failures' | 'errors' | 'skipped') => suites.reduce((n, s) => n + s[key], 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="tfgate" tests="${total('tests')}" failures="${total('failures')}" errors="${total('errors')}" skipped="${total('skipped')}">`,
    ...suites.flatMap((s) => s.lines),
    '</testsuites>',
    '',
  ].join('\n');
}

/** One view as a <testsuite>: a test case per finding, failures for blocking ones; a clean rule passes. */
/** A suite of one errored test case: something that reached no decision, shown in a CI test tab, never missing. */
export function erroredSuite(
  suite: string,
  testcase: { classname: string; name: string },
  error: { message: string; type: string },
): JunitSuite {
  return {
    lines: [
      `  <testsuite name="${xml(suite)}" tests="1" failures="0" errors="1" skipped="0">`,
      `    <testcase classname="${xml(testcase.classname)}" name="${xml(testcase.name)}">`,
      `      <error message="${xml(`no decision: ${error.message}`)}" type="${xml(error.type)}"/>`,
      '    </testcase>',
      '  </testsuite>',
    ],
    tests: 1,
    failures: 0,
    errors: 1,
    skipped: 0,
  };
}

export function junitSuite(view: ReportView, suite: string): JunitSuite {
  const cases: string[] = [];
  let failures = 0;
  let skipped = 0;
  for (const r of view.rows) {
    // file and line, which GitLab's and other JUnit readers show, when the declaration is known.
    const at = r.location ? ` file="${xml(r.location.file)}" line="${r.location.line}"` : '';
    const open = `    <testcase classname="tfgate.${xml(r.rule)}" name="${xml(r.address)}"${at}>`;
    if (r.blocking) {
      failures++;
      cases.push(
        open,
        `      <failure message="${xml(`${r.severity}: ${r.why}`)}" type="${xml(r.rule)}">${xml(`${r.rule} (${r.severity}) on ${r.address}: ${r.why}`)}</failure>`,
        '    </testcase>',
      );
    } else if (r.status === 'acknowledged') {
      skipped++;
      const why = r.acknowledgement
        ? `acknowledged by ${r.acknowledgement.by}: ${r.acknowledgement.reason}`
        : 'acknowledged';
      cases.push(open, `      <skipped message="${xml(why)}"/>`, '    </testcase>');
    } else {
      cases.push(
        open,
        `      <system-out>${xml(`${r.severity} is below the threshold ${view.minSeverity}: ${r.why}`)}</system-out>`,
        '    </testcase>',
      );
    }
  }
  // A rule with no finding is a passing test case, so a clean run still shows what was checked.
  const seen = new Set(view.rows.map((r) => r.rule));
  for (const rule of view.ruleSet) {
    if (!seen.has(rule)) cases.push(`    <testcase classname="tfgate.${rule}" name="${rule}"/>`);
  }
  if (view.detailsUnavailable && view.decision === 'block') {
    failures++;
    cases.push(
      `    <testcase classname="tfgate.${view.subjectKind}" name="${xml(view.packageId)}">`,
      `      <failure message="${xml(decisionLine(view))}" type="blocked"/>`,
      '    </testcase>',
    );
  }
  const tests = cases.filter((c) => c.trimStart().startsWith('<testcase')).length;
  return {
    lines: [
      `  <testsuite name="${xml(suite)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}">`,
      ...cases,
      '  </testsuite>',
    ],
    tests,
    failures,
    errors: 0,
    skipped,
  };
}
