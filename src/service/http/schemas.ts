// The zod schemas of every request and response. The routes validate with them and the OpenAPI
// document is generated from them, so the two cannot drift apart. The contract's shapes, which the
// client reads too, live in src/schemas/contract.ts.
import { z } from 'zod';
import { PACKAGE_ID_PATTERN } from '../../design/index.js';
import { PLAN_RULES } from '../../model/index.js';
import {
  acknowledgementSchema,
  createdApiKeySchema as contractCreatedApiKeySchema,
  driftFindingSchema,
  judgedStateSchema,
  timestampSchema as timestamp,
} from '../../schemas/contract.js';
import { expiresAtSchema } from '../../schemas/expiry.js';
import { auditRecordSchema, designRevisionViewSchema } from '../../schemas/management.js';

export { apiKeyListSchema } from '../../schemas/management.js';

import { ACCOUNT_PLANS, SCOPES } from '../types.js';

export {
  driftFindingSchema,
  errorBodySchema,
  evaluationResultSchema,
  gateResultSchema,
  observedStateResponseSchema,
  publicKeySchema,
} from '../../schemas/contract.js';

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

const reasonSchema = z
  .string('reason is required: say why this finding may be accepted')
  .trim()
  .min(1, 'reason is required: say why this finding may be accepted');

export const acknowledgeRequestSchema = z
  .object({
    reason: reasonSchema,
    expires_at: expiresAtSchema
      .optional()
      .describe(
        'RFC 3339; from then on the acknowledgement no longer holds and the finding blocks again. Must be in the future.',
      ),
  })
  .strict()
  .meta({ id: 'AcknowledgeRequest' });

/** A Terraform resource address as plan findings name it: no pattern, `*` is only a character. */
const PLAN_ADDRESS =
  /^(?:module\.[A-Za-z_][A-Za-z0-9_-]*(?:\[(?:[0-9]+|"(?:[^"\\]|\\.)*")\])?\.)*[A-Za-z_][A-Za-z0-9_-]*\.[A-Za-z_][A-Za-z0-9_-]*(?:\[(?:[0-9]+|"(?:[^"\\]|\\.)*")\])?$/;

export const planAcknowledgementRequestSchema = z
  .object({
    rule: z.enum(PLAN_RULES, `rule must be one of ${PLAN_RULES.join(', ')}`),
    address: z
      .string('address is required: the resource address the finding names')
      .max(4096)
      .regex(
        PLAN_ADDRESS,
        'address must be one resource address as the finding names it, such as aws_db_instance.ledger or module.db.aws_db_instance.main[0]',
      )
      .describe('the exact resource address; an acknowledgement never covers another address'),
    reason: reasonSchema,
    expires_at: acknowledgeRequestSchema.shape.expires_at,
  })
  .strict()
  .meta({ id: 'PlanAcknowledgementRequest' });

export const planAcknowledgementSchema = acknowledgementSchema
  .extend({
    finding_id: z.string().describe('the stable id of the finding it waives (package, rule, address)'),
    rule: z.enum(PLAN_RULES),
    address: z.string(),
  })
  .meta({ id: 'PlanAcknowledgement' });

export const planAcknowledgementListSchema = z.object({
  package_id: z.string(),
  plan_acknowledgements: z.array(planAcknowledgementSchema),
});

export const findingsListSchema = z.object({ package_id: z.string(), findings: z.array(driftFindingSchema) });

// The shape the CLI reads (tfgate audit) is the one the service answers: defined once.
export const auditEntrySchema = auditRecordSchema.meta({ id: 'AuditEntry' });

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
  state: judgedStateSchema,
});

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
/** The contract's created key, with the account and scopes as this service always sends them. */
export const createdApiKeySchema = contractCreatedApiKeySchema.extend({
  account: z.string(),
  scopes: z.array(z.enum(SCOPES)),
});

/**
 * What each path parameter looks like, for the OpenAPI document. The router refuses control characters and
 * invalid UTF-8 in any of them (400); an id of another shape names nothing (404).
 */
export const pathParameterSchemas: Record<string, z.ZodType> = {
  package_id: z.string().regex(PACKAGE_ID_PATTERN).describe('the package id'),
  name: accountNameSchema.describe('the account name'),
  finding_id: z
    .string()
    .regex(/^f_[0-9a-f]{20}$/)
    .describe('the finding id'),
  id: z
    .string()
    .regex(/^key_[A-Za-z0-9_-]{12}$/)
    .describe('the API key id'),
};

export const designRevisionSchema = designRevisionViewSchema.meta({ id: 'DesignRevision' });
