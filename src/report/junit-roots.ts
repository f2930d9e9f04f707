// JUnit XML for many plans: a <testsuite> per root (named by the root), so a CI test tab groups the findings by
// root; a root with no decision is a suite with one errored test case, never a missing suite.
import { type JunitSuite, junitDocument, junitSuite, xml } from './junit.js';
import { rootsViewOf } from './roots.js';
import type { RootsReport } from './subject.js';

export function renderJunitRoots(report: RootsReport): string {
  const v = rootsViewOf(report);
  const suites = v.roots.map((root): JunitSuite => {
    if (root.view) return junitSuite(root.view, `tfgate plan evaluation ${root.root}`);
    const message = root.noDecision?.message ?? 'the plan was not evaluated';
    return {
      lines: [
        `  <testsuite name="${xml(`tfgate plan evaluation ${root.root}`)}" tests="1" failures="0" errors="1" skipped="0">`,
        `    <testcase classname="tfgate.evaluation" name="${xml(root.root)}">`,
        `      <error message="${xml(`no decision: ${message}`)}" type="${xml(root.noDecision?.code ?? 'no_decision')}"/>`,
        '    </testcase>',
        '  </testsuite>',
      ],
      tests: 1,
      failures: 0,
      errors: 1,
      skipped: 0,
    };
  });
  return junitDocument(suites);
}
