// A minimal call to the service's management and admin endpoints (PUT, POST with JSON), with the
// client's config (base URL, key from TFGATE_API_KEY, CA, proxies). The gate and evaluation go through
// src/client, which adds retries; these calls are one-shot and answer with the contract's error.
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { type ClientConfig, createDispatcher, redact } from '../client/index.js';
import { NoDecisionError, UsageError } from '../errors/index.js';
import { errorBodySchema } from '../schemas/contract.js';

export interface CallResult {
  status: number;
  json: unknown;
}

export async function callService(
  config: ClientConfig,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: { json: unknown } | { stream: Readable; contentType: string },
): Promise<CallResult> {
  const dispatcher = createDispatcher(config);
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
        redact(`cannot reach the service at ${config.baseUrl}: ${(error as Error).message}`, [config.apiKey]),
        {
          hint: 'check --base-url / TFGATE_BASE_URL and that the service is running',
          cause: error,
        },
      );
    }
    const text = await res.body.text();
    let json: unknown = text;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      // Not JSON: keep the text for the message.
    }
    if (res.statusCode >= 400) {
      const body = errorBodySchema.safeParse(json);
      const error = body.success ? body.data.error : undefined;
      throw new UsageError(
        error?.code ?? `http_${res.statusCode}`,
        redact(`the service answered ${res.statusCode}${error?.message ? `: ${error.message}` : ''}`, [
          config.apiKey,
        ]),
      );
    }
    return { status: res.statusCode, json };
  } finally {
    await dispatcher.close();
  }
}
