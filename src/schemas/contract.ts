// The service contract's wire shapes, defined once. The service validates and documents with them (each
// `z.meta({id})` becomes an OpenAPI component); the client reads through lenient variants derived from
// them (src/client/schemas.ts). Depends on zod and the result model only.
import { DRIFT_RULES, PLAN_RULES } from '../model/index.js';
import {
  acknowledgementFields,
  countSchema as count,
  driftFindingSchema,
  evalFindingSchema,
  evaluationCountsSchema,
  severitySchema,
  timestampSchema,
} from './findings.js';
import * as z from './zod.js';

export {
  acknowledgementFields,
  acknowledgementSchema,
  driftFindingSchema,
  evalFindingSchema,
  evaluationCountsSchema,
  severitySchema,
  timestampSchema,
} from './findings.js';

const decisionSchema = z.enum(['pass', 'block']);

/** The error of every 4xx/5xx body (and of a blocked 409 result). */
export const contractErrorSchema = z.object({
  code: z.string().check(z.regex(/^[a-z][a-z0-9_]*$/), z.describe('snake_case error code')),
  message: z.string().check(z.describe('what went wrong and how to fix it')),
  details: z.optional(z.record(z.string(), z.unknown())),
});
export type ContractError = z.infer<typeof contractErrorSchema>;

/** `{"error": {"code", "message", "details"?}}` */
export const errorBodySchema = z.object({ error: contractErrorSchema }).check(z.meta({ id: 'Error' }));

/** An acknowledgement that had expired at the decision time (gate or evaluation): its finding was open again. */
export const expiredAcknowledgementSchema = z
  .extend(acknowledgementFields, {
    finding_id: z.string(),
    rule: z.enum([...PLAN_RULES, ...DRIFT_RULES]),
    address: z.string(),
    expires_at: timestampSchema,
  })
  .check(z.meta({ id: 'ExpiredAcknowledgement' }));

/** Counts the contract does not name: tfgate's service sends them, a service following the contract alone may not. */
const ADDITIVE_COUNTS = { updates: true, reads: true, imports: true, forgets: true, no_ops: true } as const;

/** The evaluation result's fields, without the component id: the client reads a lenient variant of them. */
export const evaluationResultFields = z.object({
  package_id: z.string(),
  decision: decisionSchema,
  min_severity: severitySchema,
  findings: z.array(evalFindingSchema),
  counts: z.partial(evaluationCountsSchema, ADDITIVE_COUNTS),
  expired_acknowledgements: z.optional(z.array(expiredAcknowledgementSchema)),
  error: z.optional(contractErrorSchema).check(z.describe('present with 409: code evaluation_blocked')),
});
export const evaluationResultSchema = evaluationResultFields.check(z.meta({ id: 'EvaluationResult' }));

/** Which state a drift check judged (the model's JudgedState). */
export const judgedStateSchema = z
  .object({
    source: z
      .string()
      .check(z.describe('the backend type the state was read from (pg, s3, http, ...), or "pushed"')),
    serial: z
      .nullable(z.number().check(z.int()))
      .check(z.describe("terraform's state serial; null for a pushed snapshot")),
    lineage: z
      .nullable(z.string())
      .check(z.describe("terraform's state lineage; null for a pushed snapshot")),
    read_at: timestampSchema.check(
      z.describe('when the backend was read, or when the pushed snapshot was pushed'),
    ),
    fallback_from: z
      .optional(z.string())
      .check(
        z.describe('the backend whose read failed: the package chose to judge the pushed snapshot then'),
      ),
    read_error: z.optional(z.string()).check(z.describe('why the backend read failed (with fallback_from)')),
  })
  .check(z.meta({ id: 'JudgedState' }));

/** The gate result's fields, without the component id: the client reads them less the 409 body's error. */
export const gateResultFields = z.object({
  package_id: z.string(),
  decision: decisionSchema,
  min_severity: severitySchema,
  refreshed: z.boolean(),
  drift_checked_at: timestampSchema,
  state: z.optional(judgedStateSchema).check(z.describe('the state the drift check judged')),
  blocking: z.array(driftFindingSchema),
  acknowledged: z.array(driftFindingSchema),
  counts: z.object({ open: count, acknowledged: count, blocking: count }),
  expired_acknowledgements: z.optional(z.array(expiredAcknowledgementSchema)),
  error: z.optional(contractErrorSchema).check(z.describe('present with 409: code gate_blocked')),
});
export const gateResultSchema = gateResultFields.check(z.meta({ id: 'GateResult' }));

/** GET /public-key as JSON: its fields without the component id (the client accepts any algorithm name). */
export const publicKeyFields = z.object({
  key_id: z.string(),
  algorithm: z.literal('RS256'),
  public_key: z.string().check(z.describe('PEM, SPKI')),
});
export const publicKeySchema = publicKeyFields.check(z.meta({ id: 'PublicKey' }));

/** The scopes an API key can hold (the service's and the client's one list). */
export const API_KEY_SCOPES = ['compliance:read', 'compliance:write', 'admin'] as const;

/**
 * `POST /v1/admin/accounts/{name}/api-keys` → 201: the contract's `{id, name, scopes, key}`; tfgate's
 * service adds `account`. The key is sent back in the X-Api-Key header, so it is visible ASCII.
 */
export const createdApiKeySchema = z.object({
  id: z.string().check(z.minLength(1)),
  name: z.string(),
  account: z.optional(z.string()),
  scopes: z.array(z.string()),
  key: z
    .string()
    .check(z.regex(/^[\x21-\x7e]{16,1024}$/), z.describe('shown this once; only its hash is stored')),
});

/** `PUT /packages/{package_id}/observed-state` → 200. */
export const observedStateResponseSchema = z.object({
  package_id: z.string(),
  resources: count,
  pushed_at: timestampSchema,
});
