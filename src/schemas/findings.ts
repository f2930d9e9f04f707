// The findings' wire shapes (the contract's, defined here and re-exported by contract.ts): what the policy
// engine validates its output with. Apart from the rest of the contract so that `tfgate check` and `apply`
// build only these schemas, not the service's responses. Depends on zod and the result model only.
import { DRIFT_RULES, type EvaluationCounts, PLAN_ACTIONS, PLAN_RULES, SEVERITIES } from '../model/index.js';
import * as z from './zod.js';

// zod/mini keeps z.meta({id}) as a check in the schema's definition, and z.extend, z.omit and z.pick copy
// the definition: a schema derived from a component would be registered under the component's id too (and
// z.omit and z.pick refuse a schema with checks). Shapes derived elsewhere start from the `...Fields` schema,
// which carries no id; the component is that schema with its id.

export const severitySchema = z.enum(SEVERITIES);
export const timestampSchema = z.string().check(z.describe('RFC 3339 timestamp'));
export const countSchema = z.number().check(z.int(), z.gte(0));

/** The acknowledgement's fields, without the component id: the contract's other acknowledgements extend it. */
export const acknowledgementFields = z.object({
  by: z.string(),
  account: z.string(),
  at: timestampSchema,
  reason: z.string(),
  expires_at: z
    .optional(timestampSchema)
    .check(
      z.describe('from this moment on the acknowledgement no longer holds and its finding blocks again'),
    ),
});
export const acknowledgementSchema = acknowledgementFields.check(z.meta({ id: 'Acknowledgement' }));

/** A plan finding's fields, without the component id: the policy's output is checked with them less the id. */
export const evalFindingFields = z.object({
  id: z.string(),
  rule: z.enum(PLAN_RULES),
  severity: severitySchema,
  address: z.string(),
  type: z.string(),
  kind: z.string(),
  actions: z.array(z.enum(PLAN_ACTIONS)),
  capability: z.optional(z.string()),
  message: z.string(),
  acknowledgement: z
    .optional(acknowledgementSchema)
    .check(z.describe('a plan acknowledgement holds: the finding is reported and does not block')),
});
export const evalFindingSchema = evalFindingFields.check(z.meta({ id: 'EvalFinding' }));

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
}) satisfies z.core.$ZodType<EvaluationCounts, unknown>;

/** A drift finding's fields, without the component id: the policy's output is checked with some of them. */
export const driftFindingFields = z.object({
  id: z.string().check(z.describe('stable: the same rule on the same address of the same package')),
  rule: z.enum(DRIFT_RULES),
  severity: severitySchema,
  address: z.string(),
  type: z.optional(z.string()),
  kind: z.optional(z.string()),
  capability: z.optional(z.string()),
  message: z.string(),
  status: z.enum(['open', 'acknowledged', 'resolved']),
  first_seen_at: z.optional(timestampSchema),
  last_seen_at: z.optional(timestampSchema),
  resolved_at: z.optional(timestampSchema),
  acknowledgement: z.optional(acknowledgementSchema),
});
export const driftFindingSchema = driftFindingFields.check(z.meta({ id: 'DriftFinding' }));
