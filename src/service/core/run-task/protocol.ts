// HashiCorp's run tasks integration API, as documented:
//   https://developer.hashicorp.com/terraform/cloud-docs/api-docs/run-tasks/run-tasks-integration
//   https://developer.hashicorp.com/terraform/cloud-docs/integrations/run-tasks ("Securing your Run Task")
// The request HCP Terraform POSTs, its X-TFC-Task-Signature (HMAC-SHA512 of the body, hex), and the JSON:API
// body the integration PATCHes to task_result_callback_url. HashiCorp's own scaffolding
// (hashicorp/terraform-run-task-scaffolding-go, api/) names the verification request sent when a run task
// is created: its access_token is the nonsense token "test-token", and it must be answered 200 at once.
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from '../../../schemas/zod.js';

export const VERIFICATION_TOKEN = 'test-token';
export const SIGNATURE_HEADER = 'x-tfc-task-signature';
export const JSON_API_MEDIA_TYPE = 'application/vnd.api+json';

/** What tfgate reads of the request payload; other documented fields are kept but not needed. */
export const runTaskRequestSchema = z.looseObject({
  payload_version: z.literal(1),
  stage: z.string().check(z.minLength(1), z.maxLength(200)),
  access_token: z.string().check(z.minLength(1)),
  task_result_id: z.string().check(z.minLength(1), z.maxLength(200)),
  task_result_callback_url: z.string().check(z.minLength(1)),
  task_result_enforcement_level: z.optional(z.string()),
  plan_json_api_url: z.nullish(z.string()),
  run_id: z._default(z.string().check(z.maxLength(200)), ''),
  run_app_url: z.nullish(z.string()),
  workspace_name: z._default(z.string().check(z.maxLength(200)), ''),
  organization_name: z._default(z.string().check(z.maxLength(200)), ''),
  is_speculative: z._default(z.boolean(), false),
  capabilities: z.optional(z.looseObject({ outcomes: z.optional(z.boolean()) })),
});
export type RunTaskRequest = z.output<typeof runTaskRequestSchema>;

/** An HMAC-SHA512 in hex, as HCP Terraform sends it: anything else is refused before the body is read. */
export const signatureWellFormed = (header: string | undefined): header is string =>
  header !== undefined && /^[0-9a-fA-F]{128}$/.test(header.trim());

/** HMAC-SHA512 of the exact bytes received, compared in constant time with the header (hex, any case). */
export function signatureMatches(body: Uint8Array, header: string | undefined, hmacKey: string): boolean {
  if (!signatureWellFormed(header)) return false;
  const expected = createHmac('sha512', hmacKey).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(header.trim(), 'hex'));
}

export function sign(body: Uint8Array | string, hmacKey: string): string {
  return createHmac('sha512', hmacKey).update(body).digest('hex');
}

export type TagLevel = 'none' | 'info' | 'warning' | 'error';
export interface OutcomeTag {
  label: string;
  level?: TagLevel;
}

export interface TaskResultOutcome {
  type: 'task-result-outcomes';
  attributes: {
    'outcome-id': string;
    description: string;
    body?: string;
    url?: string;
    tags?: Record<string, OutcomeTag[]>;
  };
}

export interface TaskResultBody {
  data: {
    type: 'task-results';
    attributes: { status: 'running' | 'passed' | 'failed'; message?: string; url?: string };
    relationships?: { outcomes: { data: TaskResultOutcome[] } };
  };
}

export function taskResult(
  status: 'running' | 'passed' | 'failed',
  message: string,
  outcomes?: TaskResultOutcome[],
): TaskResultBody {
  return {
    data: {
      type: 'task-results',
      attributes: { status, message },
      ...(outcomes && outcomes.length > 0 ? { relationships: { outcomes: { data: outcomes } } } : {}),
    },
  };
}
