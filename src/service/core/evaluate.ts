// Plan evaluation: the request body streamed into the plan reader, then the engine's plan entrypoint.

import { isTfgateError } from '../../errors/index.js';
import { plural } from '../../errors/plural.js';
import { type EvaluationResult, type Severity, severityAtLeast } from '../../model/index.js';
import { readObservedState } from '../../plan/index.js';
import { readAndEvaluatePlan, toEvaluationResult } from '../../policy/index.js';
import { type PackageRecord, packageEntry } from '../store/index.js';
import type { Principal } from '../types.js';
import { limitedBody, MAX_BODY_SETTING, payloadTooLarge, type RequestBody } from './body.js';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';
import { decisionPolicyData } from './plan-acknowledgements.js';
import { refuseUnstorableText } from './storable-text.js';

/** Turns the reader's error into the contract's 400, keeping where it failed (offset or path). */
function invalidInput(error: unknown, code: 'invalid_plan' | 'invalid_state', what: string): unknown {
  if (error instanceof ServiceError) return error;
  if (isTfgateError(error)) {
    return new ServiceError(400, code, error.hint ? `${error.message} (${error.hint})` : error.message, {
      details: error.details,
      cause: error,
    });
  }
  if (error instanceof SyntaxError) {
    return new ServiceError(400, code, `the body is not ${what}: ${error.message}`, { cause: error });
  }
  return error;
}

export async function evaluatePlanUpload(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  upload: RequestBody,
  params: { minSeverity: Severity; failStatus: boolean },
): Promise<{ status: 200 | 409; result: EvaluationResult }> {
  const body = limitedBody(upload, ctx.config.maxBody, MAX_BODY_SETTING);
  const engine = await ctx.engine();
  let result: EvaluationResult;
  let now: Date;
  try {
    // Evaluated as it is read, against the design and plan acknowledgements read meanwhile. Decision time:
    // the moment the plan has been read; plan acknowledgements hold while now < expires_at.
    const streamed = await readAndEvaluatePlan(body.chunks, engine, decisionPolicyData(ctx, pkg), {
      description: 'the request body',
    });
    now = streamed.now;
    result = toEvaluationResult(pkg.packageId, params.minSeverity, streamed.evaluation);
  } catch (error) {
    if (body.exceeded()) throw payloadTooLarge(ctx.config.maxBody, MAX_BODY_SETTING);
    throw invalidInput(error, 'invalid_plan', 'a Terraform plan in JSON (terraform show -json <planfile>)');
  }
  const expired = (result.expired_acknowledgements ?? []).map((a) => a.finding_id);
  await ctx.store.planAcknowledgements.auditExpired(pkg, expired, now.toISOString());
  await ctx.store.audit.append(
    packageEntry(principal, pkg, 'plan_evaluated', {
      decision: result.decision,
      min_severity: params.minSeverity,
      fail_status: params.failStatus,
      findings: result.findings.map((f) => f.id),
      resource_changes: result.counts.resource_changes,
      ...acknowledgementDetails(result),
    }),
  );
  return { status: result.decision === 'block' && params.failStatus ? 409 : 200, result };
}

/** Which findings plan acknowledgements let through, and which acknowledgements had expired. */
function acknowledgementDetails(result: EvaluationResult): Record<string, string[]> {
  const acknowledged = result.findings.filter((f) => f.acknowledgement).map((f) => f.id);
  const expired = (result.expired_acknowledgements ?? []).map((a) => a.finding_id);
  return {
    ...(acknowledged.length > 0 ? { acknowledged } : {}),
    ...(expired.length > 0 ? { expired_acknowledgements: expired } : {}),
  };
}

export function evaluationBlockedError(result: EvaluationResult): ServiceError {
  return new ServiceError(
    409,
    'evaluation_blocked',
    `the plan has ${plural(blockingCount(result), 'finding')} not acknowledged at or above ${result.min_severity} against the approved design of "${result.package_id}"; do not apply it`,
    { body: { ...result } },
  );
}

function blockingCount(result: EvaluationResult): number {
  return result.findings.filter((f) => !f.acknowledgement && severityAtLeast(f.severity, result.min_severity))
    .length;
}

export async function pushObservedState(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  upload: RequestBody,
): Promise<{ package_id: string; resources: number; pushed_at: string }> {
  const body = limitedBody(upload, ctx.config.maxBody, MAX_BODY_SETTING);
  let state: Awaited<ReturnType<typeof readObservedState>>;
  try {
    state = await readObservedState(body.chunks, { description: 'the request body' });
  } catch (error) {
    if (body.exceeded()) throw payloadTooLarge(ctx.config.maxBody, MAX_BODY_SETTING);
    throw invalidInput(error, 'invalid_state', 'Terraform state in JSON (terraform show -json)');
  }
  // What is stored: the resources read from the state, and its terraform version.
  refuseUnstorableText(
    { terraform_version: state.terraform_version, resources: state.resources },
    'invalid_state',
    'the state',
  );
  const { pushedAt } = await ctx.store.observedState.put(
    principal,
    pkg,
    state.resources,
    state.terraform_version,
  );
  return { package_id: pkg.packageId, resources: state.resources.length, pushed_at: pushedAt };
}
