// What the client expects in response bodies (service contract). A body that does not match is never trusted:
// the decision then comes from the status code alone.
import { z } from 'zod';
import {
  DRIFT_RULES,
  type EvaluationResult,
  type GateResult,
  PLAN_ACTIONS,
  PLAN_RULES,
  SEVERITIES,
} from '../model/index.js';

const severity = z.enum(SEVERITIES);
const decision = z.enum(['pass', 'block']);

/** `{"error": {"code", "message", "details"?}}`, the contract's error body for every 4xx/5xx. */
export const contractErrorSchema = z.object({
  error: z.object({
    code: z.string().regex(/^[a-z][a-z0-9_]*$/),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ContractError = z.infer<typeof contractErrorSchema>['error'];

export const evalFindingSchema = z.object({
  id: z.string(),
  rule: z.enum(PLAN_RULES),
  severity,
  address: z.string(),
  type: z.string(),
  kind: z.string(),
  actions: z.array(z.enum(PLAN_ACTIONS)),
  capability: z.string().optional(),
  message: z.string(),
});

const count = z.number().int().min(0);

export const evaluationResultSchema = z.object({
  package_id: z.string(),
  decision,
  min_severity: severity,
  findings: z.array(evalFindingSchema),
  counts: z.object({
    resource_changes: count,
    creations: count,
    destructions: count,
    unrecognized: count,
    findings: count,
    // Additive to the contract; a service that follows the contract alone leaves them out.
    updates: count.default(0),
    reads: count.default(0),
    imports: count.default(0),
    forgets: count.default(0),
    no_ops: count.default(0),
  }),
}) satisfies z.ZodType<EvaluationResult, unknown>;

export const driftFindingSchema = z.object({
  id: z.string(),
  rule: z.enum(DRIFT_RULES),
  severity,
  address: z.string(),
  type: z.string().optional(),
  kind: z.string().optional(),
  capability: z.string().optional(),
  message: z.string(),
  status: z.enum(['open', 'acknowledged', 'resolved']),
  first_seen_at: z.string().optional(),
  last_seen_at: z.string().optional(),
  resolved_at: z.string().optional(),
  acknowledgement: z
    .object({ by: z.string(), account: z.string(), at: z.string(), reason: z.string() })
    .optional(),
});

export const gateResultSchema = z.object({
  package_id: z.string(),
  decision,
  min_severity: severity,
  refreshed: z.boolean(),
  drift_checked_at: z.string(),
  blocking: z.array(driftFindingSchema),
  acknowledged: z.array(driftFindingSchema),
  counts: z.object({ open: count, acknowledged: count, blocking: count }),
}) satisfies z.ZodType<GateResult, unknown>;

/** GET /public-key as JSON (when the service ignores Accept: application/x-pem-file). */
export const publicKeySchema = z.object({
  key_id: z.string(),
  algorithm: z.string(),
  public_key: z.string(),
});
