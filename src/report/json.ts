// The contract's response shape, keys in the contract's order, so a consumer parses tfgate and the service alike.
import type { ReportSubject } from './subject.js';

export function renderJson(subject: ReportSubject): string {
  const note = subject.detailsUnavailable ? { details_available: false } : {};
  const { package_id, decision, min_severity } = subject.result;
  const head = { package_id, decision, min_severity };
  if (subject.kind === 'evaluation') {
    const r = subject.result;
    const body = {
      ...head,
      findings: r.findings,
      counts: r.counts,
      // Only with --cdktf-stack: an added key, so the contract's fields stay as they are.
      ...(subject.constructPaths?.size
        ? { construct_paths: Object.fromEntries(subject.constructPaths) }
        : {}),
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
    return `${JSON.stringify(body, null, 2)}\n`;
  }
  const r = subject.result;
  const body = {
    ...head,
    refreshed: r.refreshed,
    drift_checked_at: r.drift_checked_at,
    blocking: r.blocking,
    acknowledged: r.acknowledged,
    counts: r.counts,
    ...note,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
