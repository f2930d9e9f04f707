// A DOUBLE of HCP Terraform (it cannot be reached from here), built from HashiCorp's documented formats:
//   run task request and callback: https://developer.hashicorp.com/terraform/cloud-docs/api-docs/run-tasks/run-tasks-integration
//   signature ("Securing your Run Task"): https://developer.hashicorp.com/terraform/cloud-docs/integrations/run-tasks
//   plan JSON: https://developer.hashicorp.com/terraform/internals/json-format (served as `terraform show -json`)
// A loopback HTTP server that serves a run's plan JSON at /api/v2/plans/:id/json-output (bearer token required;
// answered, as HCP Terraform does, with a redirect to a temporary archive URL) and records every PATCH to
// /api/v2/task-results/:id/callback. It can fail callbacks (503) or hold the plan, for the delivery tests.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { z } from 'zod';
import { api, CONFORMANCE, createApprovedPackage, type TestService } from '../../helpers/service.js';
import { design } from '../fixtures.js';

/**
 * The documented callback body (run tasks integration API, "Run Task Callback" > "Request Body" and
 * "Outcomes Payload Body"; the JSON schema HashiCorp publishes for it is
 * https://github.com/hashicorp/web-unified-docs/blob/main/content/terraform-docs-common/public/schema/run-tasks/runtask-result.json).
 * Written from the documentation, independently of tfgate's code. Strict: a field the documentation does not
 * name fails the test.
 */
const tagSchema = z
  .object({ label: z.string().min(1), level: z.enum(['none', 'info', 'warning', 'error']).optional() })
  .strict();
export const documentedOutcomeSchema = z
  .object({
    type: z.literal('task-result-outcomes'),
    attributes: z
      .object({
        'outcome-id': z.string().min(1),
        description: z.string().min(1),
        body: z
          .string()
          .max(5 * 1024 * 1024)
          .optional(),
        url: z.url().optional(),
        tags: z.record(z.string().min(1), z.array(tagSchema)).optional(),
      })
      .strict(),
  })
  .strict();
export const documentedTaskResultSchema = z
  .object({
    data: z
      .object({
        type: z.literal('task-results'),
        attributes: z
          .object({
            status: z.enum(['running', 'passed', 'failed']),
            message: z.string().optional(),
            url: z.url().optional(),
          })
          .strict(),
        relationships: z
          .object({ outcomes: z.object({ data: z.array(documentedOutcomeSchema) }).strict() })
          .strict()
          .optional(),
      })
      .strict(),
  })
  .strict();
export type DocumentedTaskResult = z.output<typeof documentedTaskResultSchema>;

export interface RecordedCallback {
  taskResultId: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: DocumentedTaskResult;
}

export interface HcpTerraformDouble {
  origin: string;
  callbacks: RecordedCallback[];
  /** Every request the double saw (method and path), in order. */
  requests: Array<{ method: string; path: string; authorization: string | undefined }>;
  /** Plan JSON by plan id. */
  plans: Map<string, string>;
  /** The next n callbacks answer this status (503, 429, ...) before being recorded as failures. */
  failNextCallbacks(n: number, status?: number): void;
  /** Plan requests wait until release() (for kill -9 mid-task). */
  holdPlans(): { release(): void; requested: Promise<void> };
  /** A run task request payload as documented (sample payload), pointing at this double. */
  payload(overrides?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

export const ACCESS_TOKEN = `double.atlasv1.${randomBytes(24).toString('base64url')}`;

export function signBody(body: string, key: string): string {
  return createHmac('sha512', key).update(body).digest('hex');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export async function startHcpTerraformDouble(): Promise<HcpTerraformDouble> {
  const callbacks: RecordedCallback[] = [];
  const requests: HcpTerraformDouble['requests'] = [];
  const plans = new Map<string, string>();
  let failing = 0;
  let failStatus = 503;
  let hold: { promise: Promise<void>; requested: () => void } | undefined;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://double');
      const authorization = req.headers.authorization;
      requests.push({ method: req.method ?? '', path: url.pathname, authorization });
      const plan = /^\/api\/v2\/plans\/([^/]+)\/json-output$/.exec(url.pathname);
      if (req.method === 'GET' && plan) {
        if (authorization !== `Bearer ${ACCESS_TOKEN}`) {
          res
            .writeHead(401, { 'Content-Type': 'application/vnd.api+json' })
            .end('{"errors":[{"status":"401"}]}');
          return;
        }
        // HCP Terraform redirects json-output to a temporary, signed archive URL.
        res.writeHead(307, { Location: `/archivist/${plan[1]}?signed=1` }).end();
        return;
      }
      const archive = /^\/archivist\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && archive) {
        if (hold) {
          hold.requested();
          await hold.promise;
        }
        const json = plans.get(archive[1]!);
        if (json === undefined) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(json);
        return;
      }
      const callback = /^\/api\/v2\/task-results\/([^/]+)\/callback$/.exec(url.pathname);
      if (req.method === 'PATCH' && callback) {
        const text = await readBody(req);
        if (failing > 0) {
          failing--;
          res.writeHead(failStatus, failStatus === 429 ? { 'Retry-After': '0' } : {}).end();
          return;
        }
        if (authorization !== `Bearer ${ACCESS_TOKEN}`) {
          res.writeHead(401).end();
          return;
        }
        // Validated here, against the documented shape: a body HCP Terraform would refuse is a 422.
        const parsed = documentedTaskResultSchema.safeParse(JSON.parse(text));
        if (!parsed.success) {
          res
            .writeHead(422, { 'Content-Type': 'application/vnd.api+json' })
            .end(JSON.stringify({ errors: [{ status: '422', detail: parsed.error.message }] }));
          callbacks.push({
            taskResultId: `INVALID:${callback[1]}`,
            authorization,
            contentType: req.headers['content-type'],
            body: JSON.parse(text) as DocumentedTaskResult,
          });
          return;
        }
        callbacks.push({
          taskResultId: callback[1]!,
          authorization,
          contentType: req.headers['content-type'],
          body: parsed.data,
        });
        res.writeHead(200).end();
        return;
      }
      res.writeHead(404).end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let sequence = 0;
  return {
    origin,
    callbacks,
    requests,
    plans,
    failNextCallbacks(n, status = 503) {
      failing = n;
      failStatus = status;
    },
    holdPlans() {
      let release!: () => void;
      let requested!: () => void;
      const requestedPromise = new Promise<void>((done) => {
        requested = done;
      });
      const promise = new Promise<void>((done) => {
        release = done;
      });
      hold = { promise, requested };
      return {
        requested: requestedPromise,
        release() {
          hold = undefined;
          release();
        },
      };
    },
    payload(overrides = {}) {
      sequence++;
      const id = `${Date.now().toString(36)}${sequence}`;
      return {
        payload_version: 1,
        stage: 'post_plan',
        access_token: ACCESS_TOKEN,
        capabilities: { outcomes: true },
        configuration_version_download_url: `${origin}/api/v2/configuration-versions/cv-${id}/download`,
        configuration_version_id: `cv-${id}`,
        is_speculative: false,
        organization_name: 'acme',
        plan_json_api_url: `${origin}/api/v2/plans/plan-${id}/json-output`,
        run_app_url: `${origin}/app/acme/payments/runs/run-${id}`,
        run_created_at: new Date().toISOString(),
        run_created_by: 'someone',
        run_id: `run-${id}`,
        run_message: 'Triggered via UI',
        task_result_callback_url: `${origin}/api/v2/task-results/taskrs-${id}/callback`,
        task_result_enforcement_level: 'mandatory',
        task_result_id: `taskrs-${id}`,
        vcs_branch: 'main',
        vcs_commit_url: null,
        vcs_pull_request_url: null,
        vcs_repo_url: null,
        workspace_app_url: `${origin}/app/acme/payments`,
        workspace_id: `ws-${id}`,
        workspace_name: 'payments-prod',
        workspace_working_directory: '',
        ...overrides,
      };
    },
    close: () =>
      new Promise<void>((done) => {
        hold = undefined;
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The plan id in a payload made by payload(). */
export function planIdOf(payload: Record<string, unknown>): string {
  return /plans\/([^/]+)\/json-output/.exec(String(payload.plan_json_api_url))![1]!;
}

/** POST a payload to tfgate's run task URL, signed with `key` (or with the given signature header). */
export async function sendRunTask(
  url: string,
  payload: Record<string, unknown>,
  key: string | null,
  signature?: string,
): Promise<{ status: number; text: string }> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'TFC/1.0 (+https://app.terraform.io; TFC)',
  };
  const sig = signature ?? (key === null ? undefined : signBody(body, key));
  if (sig !== undefined) headers['X-TFC-Task-Signature'] = sig;
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text() };
}

export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The tfgate side: an approved package `packageId` with a run task configured (201); answers its URL. */
export async function configureRunTask(
  service: TestService,
  packageId: string,
  body: { hmac_key: string; min_severity?: string },
): Promise<string> {
  await createApprovedPackage(service, design(packageId));
  const put = await api<{ url: string }>(service, 'PUT', `${CONFORMANCE}/packages/${packageId}/run-task`, {
    body,
  });
  expect(put.status).toBe(201);
  return put.body.url;
}
