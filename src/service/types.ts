// The service's own vocabulary: plans, scopes, the principal a request acts as, and state backends.
import { STATE_BACKEND_TYPES, STATE_FALLBACKS } from '../schemas/state-backends.js';

export const ACCOUNT_PLANS = ['starter', 'team', 'large', 'enterprise'] as const;
export type AccountPlan = (typeof ACCOUNT_PLANS)[number];

/** The gate, the evaluation, the bundle and the public key need this plan or above. */
export const GATE_MIN_PLAN: AccountPlan = 'large';

export function planAtLeast(plan: AccountPlan, min: AccountPlan): boolean {
  return ACCOUNT_PLANS.indexOf(plan) >= ACCOUNT_PLANS.indexOf(min);
}

export const SCOPES = ['compliance:read', 'compliance:write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who a request acts as: the API key and its account. Never holds the key itself. */
export interface Principal {
  keyId: string;
  keyName: string;
  account: string;
  plan: AccountPlan;
  scopes: Scope[];
}

export { STATE_BACKEND_TYPES, STATE_FALLBACKS };
export type StateBackendType = (typeof STATE_BACKEND_TYPES)[number];

/** The default of --state-backends: every type but `local`. */
export const DEFAULT_STATE_BACKENDS: readonly StateBackendType[] = STATE_BACKEND_TYPES.filter(
  (t) => t !== 'local',
);

export type StateFallback = (typeof STATE_FALLBACKS)[number];
