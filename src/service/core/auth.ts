// The contract's checks, in its order: 401 key, 403 scope, 403 plan, 404 package, 409 not approved.
// (400 parameters come last, in the router.) Rate limiting sits right after the key is known.
import type { PackageRecord, Store } from '../store/index.js';
import { type AccountPlan, GATE_MIN_PLAN, type Principal, planAtLeast, type Scope } from '../types.js';
import { hashApiKey, hashesEqual } from './api-keys.js';
import { notFound, ServiceError } from './errors.js';

export interface AccessRule {
  scope: Scope;
  /** Set for the gate, the evaluation, the bundle and the public key. */
  minPlan?: AccountPlan;
  /** 'existing': the package must exist in the key's account; 'approved': and be approved. */
  pkg?: 'existing' | 'approved';
}

export interface Access {
  principal: Principal;
  pkg: PackageRecord | null;
}

export async function authenticate(
  store: Store,
  apiKey: string | undefined,
  packageId: string | undefined,
): Promise<{ principal: Principal; pkg: PackageRecord | null }> {
  if (apiKey === undefined || apiKey.trim() === '') {
    throw new ServiceError(401, 'missing_api_key', 'no API key: send it in the X-Api-Key header');
  }
  const hash = hashApiKey(apiKey.trim());
  const found = await store.apiKeys.lookup(hash, packageId);
  // The lookup is by an indexed hash; the constant-time comparison guards the final equality anyway.
  if (!found || found.revoked || !hashesEqual(hash, found.hash)) {
    throw new ServiceError(
      401,
      'invalid_api_key',
      'the API key is not valid (unknown or revoked); check the X-Api-Key value or ask an admin for a new key',
    );
  }
  return { principal: found.principal, pkg: found.pkg };
}

export function authorize(
  access: { principal: Principal; pkg: PackageRecord | null },
  rule: AccessRule,
  packageId: string | undefined,
): Access {
  const { principal, pkg } = access;
  if (!principal.scopes.includes(rule.scope)) {
    throw new ServiceError(
      403,
      'insufficient_scope',
      `this API key lacks the "${rule.scope}" scope; use a key that holds "${rule.scope}"`,
      { details: { required_scope: rule.scope } },
    );
  }
  if (rule.minPlan && !planAtLeast(principal.plan, rule.minPlan)) {
    throw new ServiceError(
      403,
      'plan_not_eligible',
      `account "${principal.account}" is on the ${principal.plan} plan; this call needs the ${rule.minPlan ?? GATE_MIN_PLAN} plan or above`,
      { details: { plan: principal.plan, required_plan: rule.minPlan } },
    );
  }
  if (rule.pkg) {
    if (!pkg || packageId === undefined) throw notFound(packageId ?? '');
    if (rule.pkg === 'approved' && !pkg.approved) {
      throw new ServiceError(
        409,
        'package_not_approved',
        pkg.approvedRevision === null
          ? `package "${pkg.packageId}" has no approved design; approve it with POST /v1/analysis/conformance/packages/${pkg.packageId}/approve`
          : `package "${pkg.packageId}" has a changed design (revision ${pkg.revision}) that is not approved yet; approve it with POST /v1/analysis/conformance/packages/${pkg.packageId}/approve`,
      );
    }
  }
  return { principal, pkg };
}
