// Plan acknowledgements: waive one known plan finding (one rule on one address), with a reason and an
// optional expiry. The evaluation and the package's bundle both carry them; the policy judges expiry.
import type { PlanAcknowledgement, PlanRule } from '../../model/index.js';
import { findingId } from '../../policy/finding-id.js';
import { type PolicyData, withPlanAcknowledgements } from '../../policy/index.js';
import type { PackageRecord } from '../store/index.js';
import type { Principal } from '../types.js';
import type { ServiceContext } from './context.js';
import { refusePastExpiry } from './packages.js';

export interface PlanAcknowledgementRequest {
  rule: PlanRule;
  address: string;
  reason: string;
  expires_at?: string | undefined;
}

export function acknowledgePlanFinding(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  request: PlanAcknowledgementRequest,
): Promise<PlanAcknowledgement> {
  const expiresAt = refusePastExpiry(request.expires_at);
  return ctx.store.planAcknowledgements.create(principal, pkg, {
    findingId: findingId(pkg.packageId, request.rule, request.address),
    rule: request.rule,
    address: request.address,
    reason: request.reason,
    expiresAt,
  });
}

export function listPlanAcknowledgements(
  ctx: ServiceContext,
  pkg: PackageRecord,
): Promise<PlanAcknowledgement[]> {
  return ctx.store.planAcknowledgements.list(pkg);
}

export function revokePlanAcknowledgement(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  id: string,
): Promise<PlanAcknowledgement> {
  return ctx.store.planAcknowledgements.revoke(principal, pkg, id);
}

/**
 * What the policy decides a plan with: the approved design and every plan acknowledgement not revoked,
 * expired ones included so that the evaluation says which expired. The bundle carries the same.
 */
export async function decisionPolicyData(ctx: ServiceContext, pkg: PackageRecord): Promise<PolicyData> {
  return withPlanAcknowledgements(
    ctx.policyData(pkg.revision, pkg.design),
    await ctx.store.planAcknowledgements.list(pkg),
  );
}
