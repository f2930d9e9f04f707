// What the management commands read from the service: the package, findings, audit pages and accounts, as
// the service's routes answer them (src/service/http/schemas.ts), read leniently (unknown fields ignored).
import { PLAN_RULES } from '../model/index.js';
import { acknowledgementFields, driftFindingSchema, timestampSchema } from './contract.js';
import * as z from './zod.js';

/** `GET|PUT /packages/{id}` and `POST …/approve`. */
export const packageViewSchema = z.object({
  package_id: z.string(),
  name: z.optional(z.string()),
  revision: z.string(),
  approved: z.boolean(),
  approved_revision: z.nullable(z.string()),
  approved_at: z.nullable(timestampSchema),
  last_drift_check_at: z.optional(z.nullable(timestampSchema)),
  design: z.unknown(),
  /** PUT only. */
  changed: z.optional(z.boolean()),
});
export type PackageView = z.output<typeof packageViewSchema>;

/** `GET /packages/{id}/findings`. */
export const findingsPageSchema = z.object({ package_id: z.string(), findings: z.array(driftFindingSchema) });
export type DriftFinding = z.output<typeof driftFindingSchema>;

/** A plan acknowledgement as `…/plan-acknowledgements` answers it (the service adds its component id). */
export const planAcknowledgementRecordSchema = z.extend(acknowledgementFields, {
  finding_id: z.string().check(z.describe('the stable id of the finding it waives (package, rule, address)')),
  rule: z.enum(PLAN_RULES),
  address: z.string(),
});

/** One row of `GET /packages/{id}/audit`. */
export const auditRecordSchema = z.object({
  id: z.string(),
  at: timestampSchema,
  event: z.string(),
  account: z.string(),
  package_id: z.nullable(z.string()),
  key_id: z.nullable(z.string()),
  key_name: z.nullable(z.string()),
  details: z.record(z.string(), z.unknown()),
});
export type AuditRecord = z.output<typeof auditRecordSchema>;

export const auditPageSchema = z.object({
  package_id: z.string(),
  entries: z.array(auditRecordSchema),
  next_after: z.nullable(z.string()),
});

/** `POST /v1/admin/accounts` → 201. */
export const accountViewSchema = z.object({ name: z.string(), plan: z.string() });

/** `GET /v1/admin/accounts/{name}/api-keys`: the account's keys, never a key itself. */
export const apiKeyListSchema = z.object({
  account: z.string(),
  api_keys: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      scopes: z.array(z.string()),
      created_at: timestampSchema,
      revoked_at: z.nullable(timestampSchema),
    }),
  ),
});

/**
 * `DELETE /v1/admin/api-keys/{id}` → 200: the key is revoked; `already_revoked` when it was before (a repeated
 * revocation changes nothing, and `revoked_at` is the first one's time).
 */
export const apiKeyRevocationSchema = z.object({
  id: z.string(),
  account: z.string(),
  revoked_at: timestampSchema,
  already_revoked: z.boolean(),
});

/** `GET /packages/{id}/design?revision=current|approved|<revision>`: one kept revision of the design. */
export const designRevisionViewSchema = z.object({
  package_id: z.string(),
  revision: z.string(),
  current: z.boolean().check(z.describe("true when this is the package's current design")),
  approved: z.boolean().check(z.describe('true when this is the approved revision')),
  pushed_at: timestampSchema,
  pushed_by: z
    .nullable(z.string())
    .check(z.describe('the name of the key that pushed it; null if stored before revisions were kept')),
  design: z.unknown().check(z.describe('the design document, as stored')),
});
export type DesignRevisionView = z.output<typeof designRevisionViewSchema>;

export { STATE_BACKEND_TYPES, STATE_FALLBACKS } from './state-backends.js';

/** Setting names that hold secrets in any backend: refused by the service, and by the CLI before sending. */
export const SECRET_SETTING_NAME =
  /(password|passwd|secret|token|credential|conn_str|private_key|access_key|sas|api_key)/i;

/** `GET|PUT /packages/{id}/state-source`. */
export const stateSourceViewSchema = z.object({
  package_id: z.string(),
  type: z.string(),
  config: z.record(z.string(), z.unknown()),
  fallback: z.string(),
  updated_at: timestampSchema,
  updated_by: z.string(),
});
