// A package's design at one revision: the current one, the approved one, or any pushed revision.
import type { DesignRevisionView } from '../../schemas/management.js';
import type { PackageRecord } from '../store/index.js';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';

/** `current`, `approved`, or a revision as `design push` printed it. */
export type RevisionRef = string;

const REVISION_REF = /^[A-Za-z0-9._-]{1,128}$/;

export async function designAtRevision(
  ctx: ServiceContext,
  pkg: PackageRecord,
  ref: RevisionRef,
): Promise<DesignRevisionView> {
  if (!REVISION_REF.test(ref)) {
    throw new ServiceError(
      400,
      'invalid_parameter',
      `invalid value ${JSON.stringify(ref.slice(0, 80))} for "revision"; allowed values: current, approved, or a revision (letters, digits, . _ -)`,
      { details: { parameter: 'revision' } },
    );
  }
  const revision = ref === 'current' ? pkg.revision : ref === 'approved' ? pkg.approvedRevision : ref;
  if (revision === null) {
    throw new ServiceError(
      404,
      'revision_not_found',
      `package "${pkg.packageId}" has no approved design yet; approve it with POST /v1/analysis/conformance/packages/${pkg.packageId}/approve`,
      { details: { revision: ref } },
    );
  }
  const kept = await ctx.store.designRevisions.get(pkg, revision);
  if (!kept) {
    throw new ServiceError(
      404,
      'revision_not_found',
      revision === pkg.approvedRevision
        ? `the design of package "${pkg.packageId}"'s approved revision ${revision} was not kept (it was replaced before this service kept every revision); compare with the current design instead`
        : `package "${pkg.packageId}" has no design revision "${revision}"; use current, approved, or a revision that was pushed`,
      { details: { revision: ref } },
    );
  }
  return {
    package_id: pkg.packageId,
    revision: kept.revision,
    current: kept.revision === pkg.revision,
    approved: kept.revision === pkg.approvedRevision,
    pushed_at: kept.pushedAt,
    pushed_by: kept.pushedBy,
    design: kept.design,
  };
}
