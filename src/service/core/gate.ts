// The gate (interface §4.1): block on open findings at or above the threshold; acknowledged never block.
import { type DriftFinding, type GateResult, type Severity, severityAtLeast } from '../../model/index.js';
import { type PackageRecord, packageEntry } from '../store/index.js';
import type { Principal } from '../types.js';
import type { ServiceContext } from './context.js';
import { runDriftCheck } from './drift.js';
import { ServiceError } from './errors.js';
import { driftAtDecision } from './expiry.js';

export interface GateParams {
  failStatus: boolean;
  minSeverity: Severity;
  refresh: boolean;
}

export async function gate(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  params: GateParams,
): Promise<{ status: 200 | 409; result: GateResult }> {
  let checkedAt = pkg.lastCheckRevision === pkg.revision ? pkg.lastCheckAt : null;
  let judged = pkg.lastCheckState ?? undefined;
  let refreshed = false;
  // No check of the approved revision yet: run one first rather than decide on nothing.
  if (params.refresh || checkedAt === null) {
    const outcome = await runDriftCheck(ctx, pkg, params.refresh ? 'refresh' : 'gate');
    checkedAt = outcome.checkedAt;
    judged = outcome.state;
    refreshed = true;
  }
  // Decision time: an acknowledgement whose expiry has passed no longer holds, and its finding blocks.
  const now = new Date();
  const { findings, expired, newlyExpired } = driftAtDecision(
    await ctx.store.findings.unresolved(pkg),
    now.getTime(),
  );
  await ctx.store.findings.expire(pkg, newlyExpired, now.toISOString());
  const blocking: DriftFinding[] = [];
  const acknowledged: DriftFinding[] = [];
  let open = 0;
  for (const finding of findings) {
    if (finding.status === 'acknowledged') acknowledged.push(finding);
    else if (finding.status === 'open') {
      open++;
      if (severityAtLeast(finding.severity, params.minSeverity)) blocking.push(finding);
    }
  }
  const result: GateResult = {
    package_id: pkg.packageId,
    decision: blocking.length > 0 ? 'block' : 'pass',
    min_severity: params.minSeverity,
    refreshed,
    drift_checked_at: checkedAt,
    ...(judged === undefined ? {} : { state: judged }),
    blocking,
    acknowledged,
    counts: { open, acknowledged: acknowledged.length, blocking: blocking.length },
    ...(expired.length > 0 ? { expired_acknowledgements: expired } : {}),
  };
  await ctx.store.audit.append(
    packageEntry(principal, pkg, 'gate_decided', {
      decision: result.decision,
      min_severity: params.minSeverity,
      fail_status: params.failStatus,
      refreshed,
      drift_checked_at: checkedAt,
      state: judged ?? null,
      blocking: blocking.map((f) => f.id),
      acknowledged: acknowledged.map((f) => f.id),
      ...(expired.length > 0 ? { expired_acknowledgements: expired.map((a) => a.finding_id) } : {}),
    }),
  );
  return { status: result.decision === 'block' && params.failStatus ? 409 : 200, result };
}

export function gateBlockedError(result: GateResult): ServiceError {
  return new ServiceError(
    409,
    'gate_blocked',
    `package "${result.package_id}" has ${result.counts.blocking} open drift finding(s) at or above ${result.min_severity}; fix them or acknowledge them with a reason`,
    { body: { ...result } },
  );
}
