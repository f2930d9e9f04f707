// Package management: the design document, approval, findings, acknowledgements and audit.
import { parseDesign } from '../../design/index.js';
import { isTfgateError } from '../../errors/index.js';
import type { DriftFinding, FindingStatus } from '../../model/index.js';
import { pastExpiryProblem } from '../../schemas/expiry.js';
import type { AuditRecord, PackageRecord } from '../store/index.js';
import type { Principal } from '../types.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';
import { driftAtDecision } from './expiry.js';
import { refuseUnstorableText } from './storable-text.js';

export interface PackageView {
  package_id: string;
  name?: string;
  revision: string;
  approved: boolean;
  approved_revision: string | null;
  approved_at: string | null;
  last_drift_check_at: string | null;
  created_at: string;
  updated_at: string;
  design: unknown;
}

export function packageView(pkg: PackageRecord): PackageView {
  const view: PackageView = {
    package_id: pkg.packageId,
    revision: pkg.revision,
    approved: pkg.approved,
    approved_revision: pkg.approvedRevision,
    approved_at: pkg.approvedAt,
    last_drift_check_at: pkg.lastCheckAt,
    created_at: pkg.createdAt,
    updated_at: pkg.updatedAt,
    design: pkg.design,
  };
  if (pkg.design.name !== undefined) view.name = pkg.design.name;
  return view;
}

/** The design revision: a hash of the canonical design, so re-sending the same design changes nothing. */
export function designRevision(design: unknown): string {
  return sha256Hex(canonicalJson(design)).slice(0, 32);
}

export async function putPackage(
  ctx: ServiceContext,
  principal: Principal,
  packageId: string,
  text: string,
): Promise<{ status: 200 | 201; view: PackageView & { changed: boolean } }> {
  let design: ReturnType<typeof parseDesign>;
  try {
    // parseDesign validates against the design schema and words every problem plainly, with its line.
    design = parseDesign(text, 'the request body');
  } catch (error) {
    // Only a bad document is the caller's fault; anything else is ours (500).
    if (!isTfgateError(error)) throw error;
    throw new ServiceError(400, 'invalid_design', `the design document is not valid: ${error.message}`, {
      details: error.details,
      cause: error,
    });
  }
  refuseUnstorableText(design, 'invalid_design', 'the design document');
  if (design.package_id !== packageId) {
    throw new ServiceError(
      400,
      'invalid_design',
      `the design's package_id "${design.package_id}" does not match the path's "${packageId}"; PUT it to /v1/analysis/conformance/packages/${design.package_id}`,
    );
  }
  const { pkg, created, changed } = await ctx.store.packages.put(
    principal,
    packageId,
    design,
    designRevision(design),
  );
  return { status: created ? 201 : 200, view: { ...packageView(pkg), changed } };
}

export async function approvePackage(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  revision: string | undefined,
): Promise<PackageView> {
  return packageView(await ctx.store.packages.approve(principal, pkg, revision));
}

/** The findings with their status now: an acknowledged finding whose acknowledgement expired is listed open. */
export async function listFindings(
  ctx: ServiceContext,
  pkg: PackageRecord,
  status?: FindingStatus,
): Promise<DriftFinding[]> {
  const { findings } = driftAtDecision(await ctx.store.findings.list(pkg), Date.now());
  return status === undefined ? findings : findings.filter((f) => f.status === status);
}

export async function acknowledgeFinding(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  findingId: string,
  request: { reason: string; expires_at?: string | undefined },
): Promise<DriftFinding> {
  const expiresAt = refusePastExpiry(request.expires_at);
  return ctx.store.findings.acknowledge(principal, pkg, findingId, request.reason, expiresAt);
}

/** Revoke a drift finding's acknowledgement: the finding is open again at once (audited). */
export function revokeFindingAcknowledgement(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  findingId: string,
): Promise<DriftFinding> {
  return ctx.store.findings.revokeAcknowledgement(principal, pkg, findingId);
}

/** The expiry to store (null for none); one already past is refused, 400 invalid_parameter. */
export function refusePastExpiry(expiresAt: string | undefined): string | null {
  if (expiresAt === undefined) return null;
  const problem = pastExpiryProblem(expiresAt, Date.now());
  if (problem)
    throw new ServiceError(400, 'invalid_parameter', problem, { details: { path: ['expires_at'] } });
  return expiresAt;
}

export function listAudit(
  ctx: ServiceContext,
  pkg: PackageRecord,
  options: { after?: string; limit: number },
): Promise<AuditRecord[]> {
  return ctx.store.audit.list(pkg, options);
}
