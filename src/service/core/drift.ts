// A drift check: the engine's drift entrypoint over the judged state (the backend's, read now, or the pushed
// snapshot), reconciled into stored findings.
import type { DetectedDrift, JudgedState } from '../../model/index.js';
import type { DriftCheckOutcome, PackageRecord } from '../store/index.js';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';
import { judgedState } from './judged-state.js';

export type DriftTrigger = 'scheduled' | 'refresh' | 'manual' | 'gate';

function timeout(pkg: PackageRecord, limitMs: number): ServiceError {
  return new ServiceError(
    504,
    'drift_check_timeout',
    `the drift check of package "${pkg.packageId}" ran past its time limit of ${limitMs} ms; no decision was made. Retry, or ask the operator to raise --drift-check-timeout`,
  );
}

export async function runDriftCheck(
  ctx: ServiceContext,
  pkg: PackageRecord,
  trigger: DriftTrigger,
): Promise<DriftCheckOutcome & { state: JudgedState }> {
  // Reading a backend has its own time limit (--state-read-timeout); the check's limit starts after it.
  const judged = await judgedState(ctx, pkg);
  const startedAt = new Date();
  const limitMs = ctx.config.driftCheckTimeout;
  const overdue = () => Date.now() - startedAt.getTime() >= limitMs;
  let timer: NodeJS.Timeout | undefined;
  const check = (async () => {
    const engine = await ctx.engine();
    const detected: DetectedDrift[] = engine.evaluateDrift(ctx.policyData(pkg.revision, pkg.design), {
      resources: judged.resources,
    });
    // A check that overran its limit rolls back: it is reported as a timeout, never as a result.
    const outcome = await ctx.store.driftChecks.record(
      pkg,
      detected,
      { revision: pkg.revision, trigger, instance: ctx.instanceId, startedAt, state: judged.state },
      () => {
        if (overdue()) throw timeout(pkg, limitMs);
      },
    );
    return { ...outcome, state: judged.state };
  })();
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeout(pkg, limitMs)), limitMs);
  });
  // The check keeps running after a timeout only to roll itself back; its rejection is expected then.
  check.catch(() => undefined);
  try {
    return await Promise.race([check, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
