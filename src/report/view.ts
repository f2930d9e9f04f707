// One neutral view of a report subject, so every renderer tells the same story from the same numbers.

import { ADVISORY_CONSEQUENCE, advisoryReason } from '../errors/advisory.js';
import { nounFor, plural } from '../errors/plural.js';
import {
  type Decision,
  type ExpiredAcknowledgement,
  type JudgedState,
  type RuleId,
  type Severity,
  type SourceLocation,
  severityAtLeast,
} from '../model/index.js';
import type { ReportSubject } from './subject.js';

export interface FindingRow {
  id: string;
  rule: string;
  severity: Severity;
  address: string;
  kind: string;
  type: string;
  /** The finding's message: why it was raised. */
  why: string;
  /** True when this finding makes the decision a block (open and at or above the threshold). */
  blocking: boolean;
  /** Drift findings only. */
  status?: 'open' | 'acknowledged' | 'resolved';
  /** Who acknowledged, when, why and until when (drift findings, and plan findings a plan acknowledgement waives). */
  acknowledgement?: { by: string; account: string; at: string; reason: string; expires_at?: string };
  constructPath?: string;
  /** Where the address is declared, when the configuration was read. */
  location?: SourceLocation;
}

/** `main.tf:12`, or `main.tf:12 (module.vpc)` when the line is the call of a module not in the repository. */
export function locationText(location: SourceLocation): string {
  return `${location.file}:${location.line}${location.moduleCall ? ` (${location.moduleCall})` : ''}`;
}

export type Verdict = 'pass' | 'fail' | 'advisory';

export interface ReportView {
  subjectKind: 'evaluation' | 'gate';
  /** "plan evaluation" or "gate". */
  label: string;
  packageId: string;
  decision: Decision;
  /** What the caller does with the decision: fail, pass, or report an unenforced block. */
  verdict: Verdict;
  minSeverity: Severity;
  rows: FindingRow[];
  /** Number of blocking findings: the `N failure(s)` Atlantis reads. */
  failures: number;
  /** Set when the service decided but gave no details tfgate could read. */
  detailsUnavailable?: string;
  /** The file results without a location of their own point at (ReportSubject.fallbackFile). */
  fallbackFile?: string;
  /** The directory results without a location or a fallback file point at (region-less). */
  fallbackDirectory?: string;
  /** The rules a subject of this kind evaluates, shown as passing test cases when they found nothing. */
  ruleSet: readonly RuleId[];
  /** How advisory mode was asked for (verdict advisory), as the decision line names it; absent: --advisory. */
  advisoryGivenAs?: string;
  /** Counts, as [label, n] pairs in display order; a noun's label agrees with its count ("1 destruction"). */
  counts: ReadonlyArray<readonly [string, number]>;
  /** Resource changes evaluated (evaluation only). */
  resourceChanges?: number;
  refreshed?: boolean;
  driftCheckedAt?: string;
  /** Acknowledgements that had expired at the decision time: their findings are open again. */
  expiredAcknowledgements?: ExpiredAcknowledgement[];
  /** Which state the service's drift check judged (gate only; absent from services that do not say). */
  judgedState?: JudgedState;
}

export const PLAN_RULE_SET: readonly RuleId[] = ['unsanctioned_creation', 'capability_dependency_destroyed'];
export const DRIFT_RULE_SET: readonly RuleId[] = ['unsanctioned_resource', 'capability_dependency_missing'];

export function viewOf(subject: ReportSubject): ReportView {
  const view = baseView(subject);
  // A block with nothing blocking to show came from the status alone: say so rather than "0 failures".
  if (view.decision === 'block' && view.failures === 0 && !view.detailsUnavailable) {
    view.detailsUnavailable = 'no blocking findings were reported with the decision';
  }
  if (view.verdict === 'advisory' && subject.advisoryGivenAs) view.advisoryGivenAs = subject.advisoryGivenAs;
  return view;
}

function baseView(subject: ReportSubject): ReportView {
  const advisory = subject.advisory === true;
  const verdictOf = (decision: Decision): Verdict =>
    decision === 'pass' ? 'pass' : advisory ? 'advisory' : 'fail';
  if (subject.kind === 'evaluation') {
    const r = subject.result;
    const rows: FindingRow[] = r.findings.map((f) => {
      // A plan acknowledgement the policy found holding, or a policy owner's approval: reported, never blocking.
      const approval = subject.approvals?.get(f.id) ?? f.acknowledgement;
      return {
        id: f.id,
        rule: f.rule,
        severity: f.severity,
        address: f.address,
        kind: f.kind,
        type: f.type,
        why: f.message,
        blocking: !approval && severityAtLeast(f.severity, r.min_severity),
        ...(approval ? { status: 'acknowledged' as const, acknowledgement: approval } : {}),
        ...constructPathAndLocation(subject.constructPaths, subject.locations, f.address),
      };
    });
    const failures = rows.filter((row) => row.blocking).length;
    return {
      subjectKind: 'evaluation',
      label: 'plan evaluation',
      packageId: r.package_id,
      decision: r.decision,
      verdict: verdictOf(r.decision),
      minSeverity: r.min_severity,
      rows,
      failures,
      ...(subject.detailsUnavailable ? { detailsUnavailable: subject.detailsUnavailable } : {}),
      ...(subject.fallbackFile ? { fallbackFile: subject.fallbackFile } : {}),
      ...(subject.fallbackDirectory ? { fallbackDirectory: subject.fallbackDirectory } : {}),
      ruleSet: PLAN_RULE_SET,
      counts: [
        [nounFor(r.counts.resource_changes, 'resource change'), r.counts.resource_changes],
        [nounFor(r.counts.creations, 'creation'), r.counts.creations],
        [nounFor(r.counts.destructions, 'destruction'), r.counts.destructions],
        ['unrecognized', r.counts.unrecognized],
        [nounFor(r.counts.findings, 'finding'), r.counts.findings],
      ],
      resourceChanges: r.counts.resource_changes,
      ...expired(r.expired_acknowledgements),
    };
  }
  const r = subject.result;
  const toRow =
    (blocking: boolean) =>
    (f: (typeof r.blocking)[number]): FindingRow => ({
      id: f.id,
      rule: f.rule,
      severity: f.severity,
      address: f.address,
      kind: f.kind ?? '',
      type: f.type ?? '',
      why: f.message,
      blocking,
      status: f.status,
      ...(f.acknowledgement ? { acknowledgement: f.acknowledgement } : {}),
    });
  const rows = [...r.blocking.map(toRow(true)), ...r.acknowledged.map(toRow(false))];
  return {
    subjectKind: 'gate',
    label: 'gate',
    packageId: r.package_id,
    decision: r.decision,
    verdict: verdictOf(r.decision),
    minSeverity: r.min_severity,
    rows,
    failures: Math.max(r.blocking.length, r.counts.blocking),
    ...(subject.detailsUnavailable ? { detailsUnavailable: subject.detailsUnavailable } : {}),
    ...(subject.fallbackFile ? { fallbackFile: subject.fallbackFile } : {}),
    ruleSet: DRIFT_RULE_SET,
    counts: [
      ['open', r.counts.open],
      ['acknowledged', r.counts.acknowledged],
      ['blocking', r.counts.blocking],
    ],
    refreshed: r.refreshed,
    ...(r.drift_checked_at ? { driftCheckedAt: r.drift_checked_at } : {}),
    ...expired(r.expired_acknowledgements),
    ...(r.state ? { judgedState: r.state } : {}),
  };
}

function expired(list: ExpiredAcknowledgement[] | undefined): Pick<ReportView, 'expiredAcknowledgements'> {
  return list && list.length > 0 ? { expiredAcknowledgements: list } : {};
}

/** A row's construct path (from --cdktf-stack, else from the synthesized JSON) and source location. */
function constructPathAndLocation(
  constructPaths: ReadonlyMap<string, string> | undefined,
  locations: ReadonlyMap<string, SourceLocation> | undefined,
  address: string,
): Pick<FindingRow, 'constructPath' | 'location'> {
  const location = locations?.get(address);
  const constructPath = constructPaths?.get(address) ?? location?.constructPath;
  return { ...(constructPath ? { constructPath } : {}), ...(location ? { location } : {}) };
}

/**
 * The one decision line every text-like report starts with. Atlantis's custom_policy_check reads it:
 * a block starts with FAIL and says "N failure(s)"; a pass starts with PASS and never contains "fail",
 * since Atlantis searches the output for that substring.
 */
export function decisionLine(view: ReportView): string {
  const scope =
    view.subjectKind === 'evaluation'
      ? `${plural(view.resourceChanges ?? 0, 'resource change')} evaluated`
      : `open drift findings at or above ${view.minSeverity}`;
  const where = `package ${view.packageId}, min severity ${view.minSeverity}`;
  if (view.verdict === 'pass') {
    const below = view.rows.filter((r) => !r.blocking && r.status !== 'acknowledged').length;
    const acknowledged = view.rows.filter((r) => r.status === 'acknowledged').length;
    const extras = [
      below > 0 ? `${below} below the threshold` : '',
      acknowledged > 0 ? `${acknowledged} acknowledged` : '',
    ].filter(Boolean);
    const tail = extras.length > 0 ? ` (${extras.join(', ')})` : '';
    return view.subjectKind === 'evaluation'
      ? `PASS: 0 blocking findings${tail}, ${scope} (${where})`
      : `PASS: 0 blocking drift findings${tail} (${where})`;
  }
  if (view.detailsUnavailable) {
    return view.verdict === 'fail'
      ? `FAIL: ${view.label} blocked (${where}); ${view.detailsUnavailable}`
      : `ADVISORY: the ${view.label} would block (${where}); ${view.detailsUnavailable}; ${notEnforced(view.advisoryGivenAs)}`;
  }
  const n = view.failures;
  if (view.verdict === 'fail') {
    // "1 failure", "2 failures": both hold "fail" (Atlantis's custom_policy_check) and "N failure" (its
    // conftest reading, /[1-9][0-9]* failure/).
    return `FAIL: ${plural(n, 'failure')}, ${scope} (${where})`;
  }
  return `ADVISORY: would block on ${plural(n, 'finding')}, ${scope} (${where}); ${notEnforced(view.advisoryGivenAs)}`;
}

/** What an advisory report says of a block it does not enforce, and why: "not enforced because --advisory was given". */
export function notEnforced(givenAs: string | undefined): string {
  return `${ADVISORY_CONSEQUENCE.notEnforced} ${advisoryReason(givenAs)}`;
}

/** The decision line of a subject: what the text report starts with. */
export function summaryLine(subject: ReportSubject): string {
  return decisionLine(viewOf(subject));
}
