// The findings' wire shapes (the contract's, defined here and re-exported by contract.ts): what the policy
// engine validates its output with. Apart from the rest of the contract so that `tfgate check` and `apply`
// build only these schemas, not the service's responses. Depends on zod and the result model only.
import { z } from 'zod';
import { DRIFT_RULES, type EvaluationCounts, PLAN_ACTIONS, PLAN_RULES, SEVERITIES } from '../model/index.js';

export const severitySchema = z.enum(SEVERITIES);
export const timestampSchema = z.string().describe('RFC 3339 timestamp');
export const countSchema = z.number().int().min(0);

export const acknowledgementSchema = z
  .object({
    by: z.string(),
    account: z.string(),
    at: timestampSchema,
    reason: z.string(),
    expires_at: timestampSchema
      .optional()
      .describe('from this moment on the acknowledgement no longer holds and its finding blocks again'),
  })
  .meta({ id: 'Acknowledgement' });

export const evalFindingSchema = z
  .object({
    id: z.string(),
    rule: z.enum(PLAN_RULES),
    severity: severitySchema,
    address: z.string(),
    type: z.string(),
    kind: z.string(),
    actions: z.array(z.enum(PLAN_ACTIONS)),
    capability: z.string().optional(),
    message: z.string(),
    acknowledgement: acknowledgementSchema
      .optional()
      .describe('a plan acknowledgement holds: the finding is reported and does not block'),
  })
  .meta({ id: 'EvalFinding' });

/** Every count tfgate computes (the model's EvaluationCounts). */
export const evaluationCountsSchema = z.object({
  resource_changes: countSchema,
  creations: countSchema,
  destructions: countSchema,
  unrecognized: countSchema,
  findings: countSchema,
  updates: countSchema,
  reads: countSchema,
  imports: countSchema,
  forgets: countSchema,
  no_ops: countSchema,
}) satisfies z.ZodType<EvaluationCounts, unknown>;

export const driftFindingSchema = z
  .object({
    id: z.string().describe('stable: the same rule on the same address of the same package'),
    rule: z.enum(DRIFT_RULES),
    severity: severitySchema,
    address: z.string(),
    type: z.string().optional(),
    kind: z.string().optional(),
    capability: z.string().optional(),
    message: z.string(),
    status: z.enum(['open', 'acknowledged', 'resolved']),
    first_seen_at: timestampSchema.optional(),
    last_seen_at: timestampSchema.optional(),
    resolved_at: timestampSchema.optional(),
    acknowledgement: acknowledgementSchema.optional(),
  })
  .meta({ id: 'DriftFinding' });
