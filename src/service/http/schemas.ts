// The zod schemas of every request and response. The routes validate with them and the OpenAPI
// document is generated from them, so the two cannot drift apart.
import { z } from 'zod';
import { PACKAGE_ID_PATTERN } from '../../design/index.js';
import { DRIFT_RULES, PLAN_ACTIONS, PLAN_RULES, SEVERITIES } from '../../model/index.js';
import { ACCOUNT_PLANS, SCOPES } from '../core/types.js';

export const severitySchema = z.enum(SEVERITIES);
const timestamp = z.string().describe('RFC 3339 timestamp');

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe('snake_case error code'),
      message: z.string().describe('what went wrong and how to fix it'),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'Error' });

export const acknowledgementSchema = z
  .object({ by: z.string(), account: z.string(), at: timestamp, reason: z.string() })
  .meta({ id: 'Acknowledgement' });

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
    first_seen_at: timestamp.optional(),
    last_seen_at: timestamp.optional(),
    resolved_at: timestamp.optional(),
    acknowledgement: acknowledgementSchema.optional(),
  })
  .meta({ id: 'DriftFinding' });

export const gateResultSchema = z
  .object({
    package_id: z.string(),
    decision: z.enum(['pass', 'block']),
    min_severity: severitySchema,
    refreshed: z.boolean(),
    drift_checked_at: timestamp,
    blocking: z.array(driftFindingSchema),
    acknowledged: z.array(driftFindingSchema),
    counts: z.object({ open: z.number().int(), acknowledged: z.number().int(), blocking: z.number().int() }),
    error: errorBodySchema.shape.error.optional().describe('present with 409: code gate_blocked'),
  })
  .meta({ id: 'GateResult' });

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
  })
  .meta({ id: 'EvalFinding' });

export const evaluationResultSchema = z
  .object({
    package_id: z.string(),
    decision: z.enum(['pass', 'block']),
    min_severity: severitySchema,
    findings: z.array(evalFindingSchema),
    counts: z.object({
      resource_changes: z.number().int(),
      creations: z.number().int(),
      destructions: z.number().int(),
      unrecognized: z.number().int(),
      findings: z.number().int(),
      updates: z.number().int().optional(),
      reads: z.number().int().optional(),
      imports: z.number().int().optional(),
      forgets: z.number().int().optional(),
      no_ops: z.number().int().optional(),
    }),
    error: errorBodySchema.shape.error.optional().describe('present with 409: code evaluation_blocked'),
  })
  .meta({ id: 'EvaluationResult' });

export const packageSchema = z
  .object({
    package_id: z.string().regex(PACKAGE_ID_PATTERN),
    name: z.string().optional(),
    revision: z.string().describe('hash of the design; changes when the design changes'),
    approved: z.boolean().describe('true when the current revision is approved'),
    approved_revision: z.string().nullable(),
    approved_at: timestamp.nullable(),
    last_drift_check_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    design: z.unknown().describe('the design document, as stored'),
    changed: z.boolean().optional().describe('PUT only: whether this call changed the design'),
  })
  .meta({ id: 'Package' });

export const approveRequestSchema = z
  .object({ revision: z.string().optional().describe('approve only if this is still the current revision') })
  .strict();

export const acknowledgeRequestSchema = z
  .object({ reason: z.string().trim().min(1, 'reason is required: say why this finding may be accepted') })
  .strict()
  .meta({ id: 'AcknowledgeRequest' });

export const findingsListSchema = z.object({ package_id: z.string(), findings: z.array(driftFindingSchema) });

export const auditEntrySchema = z
  .object({
    id: z.string(),
    at: timestamp,
    event: z.string(),
    account: z.string(),
    package_id: z.string().nullable(),
    key_id: z.string().nullable(),
    key_name: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry' });

export const auditListSchema = z.object({
  package_id: z.string(),
  entries: z.array(auditEntrySchema),
  next_after: z.string().nullable().describe('pass as ?after= for the next page; null at the end'),
});

export const driftCheckSchema = z.object({
  package_id: z.string(),
  checked_at: timestamp,
  detected: z.number().int(),
  opened: z.number().int(),
  reopened: z.number().int(),
  resolved: z.number().int(),
});

export const observedStateResponseSchema = z.object({
  package_id: z.string(),
  resources: z.number().int(),
  pushed_at: timestamp,
});

export const publicKeySchema = z
  .object({ key_id: z.string(), algorithm: z.literal('RS256'), public_key: z.string().describe('PEM, SPKI') })
  .meta({ id: 'PublicKey' });

export const healthSchema = z.object({ status: z.string() });

export const accountNameSchema = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/);
export const createAccountSchema = z
  .object({ name: accountNameSchema, plan: z.enum(ACCOUNT_PLANS) })
  .strict();
export const patchAccountSchema = z.object({ plan: z.enum(ACCOUNT_PLANS) }).strict();
export const accountSchema = z.object({ name: z.string(), plan: z.enum(ACCOUNT_PLANS) });
export const createApiKeySchema = z
  .object({ name: z.string().min(1).max(100), scopes: z.array(z.enum(SCOPES)).min(1) })
  .strict();
export const createdApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  account: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  key: z.string().describe('shown this once; only its hash is stored'),
});
