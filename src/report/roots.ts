// One neutral view of a many-plan report (RootsReport), so every renderer groups the roots and tells the
// combined decision the same way. Each decided root is an ordinary ReportView (view.ts).
import { plural } from '../errors/plural.js';
import type { CombinedDecision, Severity } from '../model/index.js';
import type { RootReport, RootsReport } from './subject.js';
import { notEnforced, type ReportView, viewOf } from './view.js';

export type RootStatus = 'pass' | 'block' | 'no_decision';

export interface RootView {
  root: string;
  plan: string;
  packageId?: string;
  status: RootStatus;
  /** Set when the root was decided. */
  view?: ReportView;
  noDecision?: RootReport['noDecision'];
  /** The file standing for the root when a result has no file of its own (see fallbackArtifact). */
  fallbackFile?: string;
  rootPath?: string;
}

export interface RootsView {
  decision: CombinedDecision;
  /** What the caller does: fail (block or no decision), pass, or report an unenforced stop. */
  verdict: 'pass' | 'fail' | 'advisory';
  minSeverity: Severity;
  roots: RootView[];
  /** Blocking findings over all roots. */
  failures: number;
  blocked: number;
  undecided: number;
  resourceChanges: number;
  /** How advisory mode was asked for (verdict advisory); absent: --advisory. */
  advisoryGivenAs?: string;
}

export function rootsViewOf(report: RootsReport): RootsView {
  const roots = report.roots.map((root): RootView => {
    const view = root.subject
      ? viewOf({
          ...root.subject,
          advisory: report.advisory,
          ...(report.advisoryGivenAs ? { advisoryGivenAs: report.advisoryGivenAs } : {}),
        })
      : undefined;
    return {
      root: root.root,
      plan: root.plan,
      ...(root.packageId ? { packageId: root.packageId } : {}),
      status: view ? view.decision : 'no_decision',
      ...(view ? { view } : {}),
      ...(root.noDecision ? { noDecision: root.noDecision } : {}),
      ...(view?.fallbackFile ? { fallbackFile: view.fallbackFile } : {}),
      ...(root.rootPath ? { rootPath: root.rootPath } : {}),
    };
  });
  return {
    decision: report.decision,
    verdict: report.decision === 'pass' ? 'pass' : report.advisory ? 'advisory' : 'fail',
    minSeverity: report.minSeverity,
    roots,
    failures: roots.reduce((n, r) => n + (r.view?.failures ?? 0), 0),
    blocked: roots.filter((r) => r.status === 'block').length,
    undecided: roots.filter((r) => r.status === 'no_decision').length,
    resourceChanges: roots.reduce((n, r) => n + (r.view?.resourceChanges ?? 0), 0),
    ...(report.advisory && report.advisoryGivenAs ? { advisoryGivenAs: report.advisoryGivenAs } : {}),
  };
}

/**
 * The combined decision line every text-like many-plan report starts with: PASS, FAIL (a block; "N
 * failures", as Atlantis reads it), NO DECISION, or ADVISORY. A pass never contains "fail".
 */
export function rootsDecisionLine(v: RootsView): string {
  const of = plural(v.roots.length, 'root');
  const scope = `${plural(v.resourceChanges, 'resource change')} evaluated (min severity ${v.minSeverity})`;
  const undecided = v.undecided > 0 ? `, no decision for ${v.undecided}` : '';
  if (v.decision === 'pass') return `PASS: 0 blocking findings in ${of}, ${scope}`;
  const what =
    v.decision === 'block'
      ? `${plural(v.failures, 'failure')} in ${v.blocked} of ${of}${undecided}`
      : `no decision for ${v.undecided} of ${of}`;
  if (v.verdict === 'advisory') {
    return `ADVISORY: would stop on ${what}, ${scope}; ${notEnforced(v.advisoryGivenAs)}`;
  }
  return v.decision === 'block' ? `FAIL: ${what}, ${scope}` : `NO DECISION: ${what}, ${scope}`;
}

/** A root's own one-line status: its decision line, or why it has no decision. */
export function rootStatusLine(root: RootView, decisionLine: (view: ReportView) => string): string {
  if (root.view) return decisionLine(root.view);
  return `NO DECISION: ${root.noDecision?.message ?? 'the plan was not evaluated'}`;
}
