// The zod schemas of every request and response. The routes validate with them and the OpenAPI
// document is generated from them, so the two cannot drift apart. The contract's shapes, which the
// client reads too, live in src/schemas/contract.ts.
import { PACKAGE_ID_PATTERN } from '../../design/index.js';
import { PLAN_RULES } from '../../model/index.js';
import {
  createdApiKeySchema as contractCreatedApiKeySchema,
  driftFindingSchema,
  judgedStateSchema,
  timestampSchema as timestamp,
} from '../../schemas/contract.js';
import { expiresAtSchema } from '../../schemas/expiry.js';
import {
  auditRecordSchema,
  designRevisionViewSchema,
  planAcknowledgementRecordSchema,
} from '../../schemas/management.js';
import * as z from '../../schemas/zod.js';

export { apiKeyListSchema, apiKeyRevocationSchema } from '../../schemas/management.js';

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
    package_id: z.string().check(z.regex(PACKAGE_ID_PATTERN)),
    name: z.optional(z.string()),
    revision: z.string().check(z.describe('hash of the design; changes when the design changes')),
    approved: z.boolean().check(z.describe('true when the current revision is approved')),
    approved_revision: z.nullable(z.string()),
    approved_at: z.nullable(timestamp),
    last_drift_check_at: z.nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
    design: z.unknown().check(z.describe('the design document, as stored')),
    changed: z.optional(z.boolean()).check(z.describe('PUT only: whether this call changed the design')),
  })
  .check(z.meta({ id: 'Package' }));

export const approveRequestSchema = z.strictObject({
  revision: z.optional(z.string()).check(z.describe('approve only if this is still the current revision')),
});

const reasonSchema = z
  .string('reason is required: say why this finding may be accepted')
  .check(z.trim(), z.minLength(1, 'reason is required: say why this finding may be accepted'));

export const acknowledgeRequestSchema = z
  .strictObject({
    reason: reasonSchema,
    expires_at: z
      .optional(expiresAtSchema)
      .check(
        z.describe(
          'RFC 3339; from then on the acknowledgement no longer holds and the finding blocks again. Must be in the future.',
        ),
      ),
  })
  .check(z.meta({ id: 'AcknowledgeRequest' }));

/** A Terraform resource address as plan findings name it: no pattern, `*` is only a character. */
const PLAN_ADDRESS =
  /^(?:module\.[A-Za-z_][A-Za-z0-9_-]*(?:\[(?:[0-9]+|"(?:[^"\\]|\\.)*")\])?\.)*[A-Za-z_][A-Za-z0-9_-]*\.[A-Za-z_][A-Za-z0-9_-]*(?:\[(?:[0-9]+|"(?:[^"\\]|\\.)*")\])?$/;

export const planAcknowledgementRequestSchema = z
  .strictObject({
    rule: z.enum(PLAN_RULES, `rule must be one of ${PLAN_RULES.join(', ')}`),
    address: z
      .string('address is required: the resource address the finding names')
      .check(
        z.maxLength(4096),
        z.regex(
          PLAN_ADDRESS,
          'address must be one resource address as the finding names it, such as aws_db_instance.ledger or module.db.aws_db_instance.main[0]',
        ),
        z.describe('the exact resource address; an acknowledgement never covers another address'),
      ),
    reason: reasonSchema,
    expires_at: acknowledgeRequestSchema.shape.expires_at,
  })
  .check(z.meta({ id: 'PlanAcknowledgementRequest' }));

// The shape the CLI reads (tfgate plan-acks) is the one the service answers: defined once.
export const planAcknowledgementSchema = planAcknowledgementRecordSchema.check(
  z.meta({ id: 'PlanAcknowledgement' }),
);

export const planAcknowledgementListSchema = z.object({
  package_id: z.string(),
  plan_acknowledgements: z.array(planAcknowledgementSchema),
});

export const findingsListSchema = z.object({ package_id: z.string(), findings: z.array(driftFindingSchema) });

// The shape the CLI reads (tfgate audit) is the one the service answers: defined once.
export const auditEntrySchema = auditRecordSchema.check(z.meta({ id: 'AuditEntry' }));

export const auditListSchema = z.object({
  package_id: z.string(),
  entries: z.array(auditEntrySchema),
  next_after: z.nullable(z.string()).check(z.describe('pass as ?after= for the next page; null at the end')),
});

export const driftCheckSchema = z.object({
  package_id: z.string(),
  checked_at: timestamp,
  detected: z.number().check(z.int()),
  opened: z.number().check(z.int()),
  reopened: z.number().check(z.int()),
  resolved: z.number().check(z.int()),
  state: judgedStateSchema,
});

export const healthSchema = z.object({ status: z.string() });

export const accountNameSchema = z.string().check(z.regex(/^[a-z0-9][a-z0-9._-]{0,62}$/));
export const createAccountSchema = z.strictObject({ name: accountNameSchema, plan: z.enum(ACCOUNT_PLANS) });
export const patchAccountSchema = z.strictObject({ plan: z.enum(ACCOUNT_PLANS) });
export const accountSchema = z.object({ name: z.string(), plan: z.enum(ACCOUNT_PLANS) });
export const createApiKeySchema = z.strictObject({
  name: z.string().check(z.minLength(1), z.maxLength(100)),
  scopes: z.array(z.enum(SCOPES)).check(z.minLength(1)),
});
/** The contract's created key, with the account and scopes as this service always sends them. */
export const createdApiKeySchema = z.extend(contractCreatedApiKeySchema, {
  account: z.string(),
  scopes: z.array(z.enum(SCOPES)),
});

/**
 * What each path parameter looks like, for the OpenAPI document. The router refuses control characters and
 * invalid UTF-8 in any of them (400); an id of another shape names nothing (404).
 */
export const pathParameterSchemas: Record<string, z.ZodMiniType> = {
  package_id: z.string().check(z.regex(PACKAGE_ID_PATTERN), z.describe('the package id')),
  name: accountNameSchema.check(z.describe('the account name')),
  finding_id: z.string().check(z.regex(/^f_[0-9a-f]{20}$/), z.describe('the finding id')),
  id: z.string().check(z.regex(/^key_[A-Za-z0-9_-]{12}$/), z.describe('the API key id')),
};

export const designRevisionSchema = designRevisionViewSchema.check(z.meta({ id: 'DesignRevision' }));
