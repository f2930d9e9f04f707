// The run task routes: HCP Terraform's signed POST (no X-Api-Key: HCP Terraform cannot send one), and the
// configuration (compliance:write / compliance:read) that sets the HMAC key and answers the URL to paste.
import type { IncomingHttpHeaders } from 'node:http';
import { SEVERITIES } from '../../model/index.js';
import * as z from '../../schemas/zod.js';
import type { ServiceContext } from '../core/context.js';
import { ServiceError } from '../core/errors.js';
import { configureRunTask, receiveRunTask, SIGNATURE_HEADER, showRunTask } from '../core/run-task/index.js';
import { BASE_PATH, PACKAGE_PATH } from './paths.js';
import { FailureThrottle } from './rate-limit.js';
import { defineRoute, type Route } from './router.js';

const RUN_TASK_PATH = `${PACKAGE_PATH}/run-task` as const;

export const runTaskConfigRequestSchema = z.strictObject({
  hmac_key: z
    .string()
    .check(
      z.minLength(32),
      z.maxLength(512),
      z.regex(/^[\x21-\x7e]+$/),
      z.describe('the HMAC key to give HCP Terraform: 32 to 512 visible ASCII characters; never returned'),
    ),
  min_severity: z
    .optional(z.enum(SEVERITIES))
    .check(z.describe('findings at or above it fail the task (default low)')),
});

export const runTaskConfigSchema = z.object({
  package_id: z.string(),
  configured: z.boolean(),
  min_severity: z.optional(z.enum(SEVERITIES)),
  url: z.string().check(z.describe('the run task Endpoint URL to paste into HCP Terraform')),
  allowed_origins: z
    .array(z.string())
    .check(z.describe('the HCP Terraform / Terraform Enterprise origins this service calls')),
  created_at: z.optional(z.string()),
  updated_at: z.optional(z.string()),
});

/** Where HCP Terraform reaches this route: --public-url, else the request's own Host. */
function runTaskUrl(ctx: ServiceContext, headers: IncomingHttpHeaders, packageId: string): string {
  const base = ctx.config.publicUrl?.replace(/\/+$/, '') ?? `http://${headers.host ?? '127.0.0.1'}`;
  return `${base}${BASE_PATH}/packages/${encodeURIComponent(packageId)}/run-task`;
}

/**
 * Refused run task requests (bad or missing signature, not a run task request, origin not allowed, too large)
 * per client address: 20 at once, then one every 10 seconds, in a table of 10,000 addresses. HCP Terraform's
 * signed requests are never refused, so they never count; a flood from elsewhere is answered 429 before any
 * body is read or the store is asked, and logged once per lockout (never an audit row per request).
 */
export const RUN_TASK_REFUSALS = { burst: 20, perMinute: 6, maxAddresses: 10_000 };

const refusals = new WeakMap<ServiceContext, FailureThrottle>();
function refusalsOf(ctx: ServiceContext): FailureThrottle {
  let throttle = refusals.get(ctx);
  if (!throttle) {
    throttle = new FailureThrottle({ ...RUN_TASK_REFUSALS, on: ctx.config.addressLimits === 'on' });
    refusals.set(ctx, throttle);
  }
  return throttle;
}

export const RUN_TASK_ROUTES: readonly Route[] = [
  defineRoute({
    method: 'POST',
    path: RUN_TASK_PATH,
    operationId: 'runTask',
    summary:
      'HCP Terraform / Terraform Enterprise run task request, signed with X-TFC-Task-Signature (HMAC-SHA512 of the body with the configured key); answered 200 at once, the result is PATCHed to task_result_callback_url',
    tag: 'conformance',
    access: null,
    body: {
      kind: 'stream',
      contentTypes: ['application/json'],
      description: "HCP Terraform's run task request payload (payload_version 1)",
    },
    responses: {
      200: { description: 'accepted (also a repeated task_result_id, and the verification request)' },
    },
    errors: [
      { status: 400, codes: ['invalid_run_task_request'] },
      { status: 401, codes: ['invalid_signature'] },
      { status: 403, codes: ['origin_not_allowed'] },
      { status: 429, codes: ['too_many_refused_requests'] },
    ],
    async handler({ ctx, client, params, headers, body }) {
      const throttle = refusalsOf(ctx);
      const wait = throttle.retryAfter(client);
      if (wait > 0) {
        throw new ServiceError(
          429,
          'too_many_refused_requests',
          `too many refused run task requests from this address; retry after ${wait} s, with the HMAC key set by "tfgate run-task configure"`,
          { headers: { 'Retry-After': String(wait) } },
        );
      }
      const header = headers[SIGNATURE_HEADER];
      try {
        await receiveRunTask(ctx, params.package_id, body, Array.isArray(header) ? header[0] : header);
      } catch (error) {
        if (error instanceof ServiceError && error.status < 500 && throttle.fail(client)) {
          ctx.log.warn('run task requests refused too often: address locked out', {
            client_address: client,
            package_id: params.package_id,
            last_error: error.code,
            retry_after_s: throttle.retryAfter(client),
          });
        }
        throw error;
      }
      return { status: 200 };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: RUN_TASK_PATH,
    operationId: 'configureRunTask',
    summary:
      "Set the package's run task HMAC key (stored sealed, never returned) and threshold; answers the URL to paste into HCP Terraform",
    tag: 'management',
    access: { scope: 'compliance:write', pkg: 'existing' },
    body: { kind: 'json', schema: runTaskConfigRequestSchema },
    responses: {
      200: { description: 'replaced', schema: runTaskConfigSchema },
      201: { description: 'configured', schema: runTaskConfigSchema },
    },
    async handler({ ctx, principal, pkg, headers, body }) {
      const { created, view } = await configureRunTask(
        ctx,
        principal,
        pkg,
        body,
        runTaskUrl(ctx, headers, pkg.packageId),
      );
      return { status: created ? 201 : 200, json: view, headers: { 'Cache-Control': 'no-store' } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: RUN_TASK_PATH,
    operationId: 'getRunTask',
    summary: "Whether the package's run task is configured, its threshold and URL; never the key",
    tag: 'management',
    access: { scope: 'compliance:read', pkg: 'existing' },
    responses: { 200: { description: 'the configuration', schema: runTaskConfigSchema } },
    handler: async ({ ctx, pkg, headers }) => ({
      status: 200,
      json: await showRunTask(ctx, pkg, runTaskUrl(ctx, headers, pkg.packageId)),
    }),
  }),
];
