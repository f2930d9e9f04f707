// SARIF for many plans: one run, the rules once, every root's results in it, each located in its own root
// (its declaration, else its plan file, else its directory) and tagged with the root. A root with no decision
// is a tool execution notification, and the run's invocation did not succeed: no silent gap.
import { rootsViewOf } from './roots.js';
import { fallbackArtifact, sarifLog, sarifResult, sarifRules } from './sarif.js';
import type { RootsReport } from './subject.js';

const PLAN_RULE_IDS = ['unsanctioned_creation', 'capability_dependency_destroyed'];

export function renderSarifRoots(report: RootsReport): string {
  const v = rootsViewOf(report);
  const ruleIds = [
    ...new Set([...PLAN_RULE_IDS, ...v.roots.flatMap((root) => root.view?.rows.map((r) => r.rule) ?? [])]),
  ];
  const results = v.roots.flatMap((root) => {
    if (!root.view) return [];
    const fallback = fallbackArtifact(root.fallbackFile, root.rootPath ?? root.view.fallbackDirectory);
    const packageId = root.view.packageId;
    return root.view.rows.map((r) => sarifResult(r, { ruleIds, packageId, fallback, root: root.root }));
  });
  const undecided = v.roots.filter((root) => !root.view);
  return sarifLog({
    rules: sarifRules(ruleIds, 'evaluation'),
    results,
    automationId: 'tfgate/evaluation/roots/',
    invocation: {
      executionSuccessful: undecided.length === 0,
      ...(undecided.length > 0
        ? {
            toolExecutionNotifications: undecided.map((root) => ({
              level: 'error',
              message: { text: `${root.root}: no decision: ${root.noDecision?.message ?? 'not evaluated'}` },
            })),
          }
        : {}),
      properties: {
        decision: v.decision,
        min_severity: v.minSeverity,
        roots: Object.fromEntries(v.roots.map((root) => [root.root, root.status])),
      },
    },
  });
}
