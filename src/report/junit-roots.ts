// JUnit XML for many plans: a <testsuite> per root (named by the root), so a CI test tab groups the findings by
// root; a root with no decision is a suite with one errored test case, never a missing suite.
import { erroredSuite, type JunitSuite, junitDocument, junitSuite } from './junit.js';
import { rootsViewOf } from './roots.js';
import type { RootsReport } from './subject.js';

export function renderJunitRoots(report: RootsReport): string {
  const v = rootsViewOf(report);
  const suites = v.roots.map((root): JunitSuite => {
    if (root.view) return junitSuite(root.view, `tfgate plan evaluation ${root.root}`);
    return erroredSuite(
      `tfgate plan evaluation ${root.root}`,
      { classname: 'tfgate.evaluation', name: root.root },
      {
        message: root.noDecision?.message ?? 'the plan was not evaluated',
        type: root.noDecision?.code ?? 'no_decision',
      },
    );
  });
  return junitDocument(suites);
}
