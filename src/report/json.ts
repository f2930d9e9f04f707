// The contract's response shape, keys in the contract's order, so a consumer parses tfgate and the service alike.
import type { EvaluationSubject, ReportSubject, RootsReport } from './subject.js';

export function renderJson(subject: ReportSubject): string {
  const note = subject.detailsUnavailable ? { details_available: false } : {};
  const { package_id, decision, min_severity } = subject.result;
  const head = { package_id, decision, min_severity };
  if (subject.kind === 'evaluation') return `${JSON.stringify(evaluationBody(subject), null, 2)}\n`;
  const r = subject.result;
  const body = {
    ...head,
    refreshed: r.refreshed,
    drift_checked_at: r.drift_checked_at,
    ...(r.state ? { state: r.state } : {}),
    blocking: r.blocking,
    acknowledged: r.acknowledged,
    counts: r.counts,
    ...note,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** One evaluation in the contract's shape, with tfgate's added keys only when they have something to say. */
function evaluationBody(subject: EvaluationSubject) {
  const note = subject.detailsUnavailable ? { details_available: false } : {};
  const r = subject.result;
  return {
    package_id: r.package_id,
    decision: r.decision,
    min_severity: r.min_severity,
    findings: r.findings,
    counts: r.counts,
    // Only with --cdktf-stack: an added key, so the contract's fields stay as they are.
    ...(subject.constructPaths?.size ? { construct_paths: Object.fromEntries(subject.constructPaths) } : {}),
    // Only when the configuration was read: address -> the file and line that declare it.
    ...(subject.locations?.size ? { source_locations: Object.fromEntries(subject.locations) } : {}),
    // Only with --approved-findings: the findings an earlier approval lets through, by id.
    ...(subject.approvals?.size
      ? {
          approved_findings: Object.fromEntries(
            r.findings.flatMap((f) => {
              const approval = subject.approvals?.get(f.id);
              return approval ? [[f.id, approval]] : [];
            }),
          ),
        }
      : {}),
    ...note,
  };
}

/**
 * Many plans: the combined decision, counts of roots by decision, and a list with each root's evaluation in
 * the contract's shape (plus `root` and `plan`), or `decision: "no_decision"` and the error for a root that
 * has none. The single-plan JSON is unchanged.
 */
export function renderJsonRoots(report: RootsReport): string {
  const results = report.roots.map((root) =>
    root.subject
      ? { root: root.root, plan: root.plan, ...evaluationBody(root.subject) }
      : {
          root: root.root,
          plan: root.plan,
          ...(root.packageId ? { package_id: root.packageId } : {}),
          decision: 'no_decision',
          min_severity: report.minSeverity,
          error: root.noDecision ?? { code: 'no_decision', message: 'the plan was not evaluated' },
        },
  );
  const count = (decision: string) => results.filter((r) => r.decision === decision).length;
  const body = {
    decision: report.decision,
    min_severity: report.minSeverity,
    counts: {
      roots: results.length,
      pass: count('pass'),
      block: count('block'),
      no_decision: count('no_decision'),
    },
    results,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
