// A minimal call to the service's management and admin endpoints (PUT, POST with JSON), with the
// client's config (base URL, key from TFGATE_API_KEY, CA, proxies). The gate and evaluation go through
// src/client, which adds retries; these calls are one-shot and answer with the contract's error.
// A success is used only when its status is the expected one and its body matches the contract's schema:
// nothing from any other body is printed or used.
import type { Readable } from 'node:stream';
import { request } from 'undici';
import type { z } from 'zod';
import { type ClientConfig, createDispatcher, printable, readJsonBody, redact } from '../client/index.js';
import { NoDecisionError, UsageError } from '../errors/index.js';
import { errorBodySchema } from '../schemas/contract.js';

/** What the caller accepts: the success status and the contract's schema of its body. */
export interface ExpectedResponse<S extends z.ZodType> {
  /** The call, for messages: "creating the API key". */
  what: string;
  status: number;
  schema: S;
}

/** Larger answers are not read: every body these calls accept is small. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export async function callService<S extends z.ZodType>(
  config: ClientConfig,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body: { json: unknown } | { stream: Readable; contentType: string } | undefined,
  expected: ExpectedResponse<S>,
): Promise<z.output<S>> {
  const dispatcher = createDispatcher(config);
  const safe = (text: string) => redact(text, [config.apiKey]);
  try {
    const headers: Record<string, string> = { 'x-api-key': config.apiKey, accept: 'application/json' };
    let payload: string | Readable | undefined;
    if (body && 'json' in body) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body.json);
    } else if (body) {
      headers['content-type'] = body.contentType;
      payload = body.stream;
    }
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(`${config.baseUrl}${path}`, { method, headers, body: payload, dispatcher });
    } catch (error) {
      throw new NoDecisionError(
        'service_unreachable',
        safe(`cannot reach the service at ${config.baseUrl}: ${(error as Error).message}`),
        {
          hint: 'check --base-url / TFGATE_BASE_URL and that the service is running',
          cause: error,
        },
      );
    }
    const json = await readJsonBody(res.body, MAX_RESPONSE_BYTES);
    if (res.statusCode >= 400) {
      const parsed = errorBodySchema.safeParse(json);
      const error = parsed.success ? parsed.data.error : undefined;
      const code = error ? printable(error.code, 64) : `http_${res.statusCode}`;
      const message = safe(
        `the service answered ${res.statusCode}${error ? `: ${printable(error.message)}` : ''}`,
      );
      // A refusal of this call is the caller's to fix (exit 1); a failing service decided nothing (exit 4).
      throw res.statusCode >= 500 ? new NoDecisionError(code, message) : new UsageError(code, message);
    }
    const parsed = res.statusCode === expected.status ? expected.schema.safeParse(json) : undefined;
    if (!parsed?.success) {
      // Never echo the body: it is not what the contract promises, and may hold anything.
      throw new NoDecisionError(
        'unexpected_response',
        `the service at ${config.baseUrl} answered ${expected.what} with HTTP ${res.statusCode} and a body that is not the contract's (expected HTTP ${expected.status}); nothing from it was used`,
        {
          hint: 'check that --base-url / TFGATE_BASE_URL points at the tfgate service itself (not a proxy, a login page or another API), then try again',
        },
      );
    }
    return parsed.data;
  } finally {
    await dispatcher.close();
  }
}
