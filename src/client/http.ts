// The HTTP transport: one undici dispatcher (proxy-aware, custom CA), timeouts, and retries with backoff.
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
import { isTfgateError, NoDecisionError, type TfgateError } from '../errors/index.js';
import { parseUntrustedJson } from '../json/untrusted.js';
import type { ClientConfig } from './config.js';
import { errorForStatus, FINAL_ERROR_CODES, type Operation } from './errors.js';
import { printable, redact } from './redact.js';
import { type ContractError, errorBodySchema } from './schemas.js';

/** Statuses worth another attempt: rate limiting and gateway trouble (issue "The client"). */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** An error body is small: one read up to this, to tell a final answer from a passing fault. */
const MAX_ERROR_BODY_BYTES = 256 * 1024;

/** Network failures worth another attempt; TLS and certificate errors are not (retrying cannot fix them). */
const RETRYABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  // The connection died under a streamed body: undici aborts the request body (service gone mid-upload).
  'UND_ERR_ABORTED',
  'ECONNABORTED',
]);

/** How a dropped connection reads when the error carries no code (undici's SocketError, Node's http). */
const CONNECTION_LOST_MESSAGE = /other side closed|socket hang up/i;

const MAX_JSON_BODY_BYTES = 64 * 1024 * 1024;

export interface RequestSpec {
  operation: Operation;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path under the base URL, starting with "/v1/". */
  path: string;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  packageId?: string;
  /**
   * The request body. Called once per attempt, so a retry re-streams from the start. When `reopenable`
   * is false the request is never retried, and `notReopenableReason` says why in the error.
   */
  body?: { open(): Readable; reopenable: boolean; description: string };
  /**
   * False for a call that must not be sent twice (creating an API key: a retry after a lost answer would
   * create a second key). Default true.
   */
  retry?: boolean;
}

export interface ServiceResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  attempts: number;
  /** The body's JSON, when send() already read it (a final answer with a retryable status). */
  read?: { json: unknown };
}

export interface TransportDeps {
  /** For tests: a dispatcher to use instead of the environment-configured agent. */
  dispatcher?: Dispatcher;
  random?: () => number;
  sleep?: (ms: number) => Promise<unknown>;
  /** Told before each retry, so that a wait on a service that does not answer is never a silent one. */
  notice?: (message: string) => void;
}

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Every error in the cause chain (undici and stream errors wrap the socket's). */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let e: unknown = error;
    e && chain.length < 5 && !chain.includes(e);
    e = (e as { cause?: unknown }).cause
  ) {
    chain.push(e);
  }
  return chain;
}

/**
 * The code of a lost or refused connection anywhere in the cause chain, or undefined. These are retried
 * (a reopenable plan is re-streamed from its first byte); TLS failures are not among them.
 */
export function connectionErrorCode(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && RETRYABLE_CODES.has(code)) return code;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_LOST_MESSAGE.test(message)) {
      return typeof code === 'string' ? code : 'UND_ERR_SOCKET';
    }
  }
  return undefined;
}

/**
 * True for an error the transport caused rather than the plan source: undici passes the socket's error to
 * the request body it destroys, and that must not read as "the plan could not be read".
 */
function isTransportError(error: unknown): boolean {
  if (connectionErrorCode(error) !== undefined) return true;
  return causeChain(error).some((e) => {
    const code = (e as { code?: unknown }).code;
    return typeof code === 'string' && (code.startsWith('UND_ERR') || isTlsError(code));
  });
}

function isTlsError(code: string | undefined): boolean {
  return (
    code !== undefined &&
    (code.startsWith('ERR_TLS') ||
      code.startsWith('ERR_SSL') ||
      /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|DEPTH_ZERO/.test(code))
  );
}

/** A wait or a limit as a notice says it: 300 ms, 2 s, 300 s. */
function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`;
}

/** Parse Retry-After (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export class ServiceTransport {
  readonly baseUrl: string;
  readonly #config: ClientConfig;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #random: () => number;
  readonly #sleep: (ms: number) => Promise<unknown>;
  readonly #notice: (message: string) => void;

  constructor(config: ClientConfig, deps: TransportDeps = {}) {
    this.baseUrl = config.baseUrl;
    this.#config = config;
    this.#ownsDispatcher = deps.dispatcher === undefined;
    this.#dispatcher = deps.dispatcher ?? createDispatcher(config);
    this.#random = deps.random ?? Math.random;
    this.#sleep = deps.sleep ?? ((ms) => sleep(ms));
    this.#notice = deps.notice ?? (() => {});
  }

  /** Wait before attempt `next`, saying why and how long. */
  async #retryAfter(spec: RequestSpec, why: string, waitMs: number, next: number, of: number) {
    this.#notice(
      `${spec.operation}: the service ${why}; trying again in ${duration(waitMs)} (attempt ${next} of ${of})`,
    );
    await this.#sleep(waitMs);
  }

  /** What went wrong with an attempt, in the words of a notice. */
  #failedAttempt(code: string | undefined): string {
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      return `did not answer within ${duration(this.#config.headersTimeoutMs)}`;
    }
    if (code === 'UND_ERR_BODY_TIMEOUT') return 'stopped sending its answer';
    if (code === 'ECONNREFUSED') return 'refused the connection';
    return `could not be reached (${code ?? 'connection lost'})`;
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** Make every message safe to print: the key never appears, however the error was built. */
  redact(text: string): string {
    return redact(text, [this.#config.apiKey]);
  }

  url(spec: RequestSpec): string {
    const url = new URL(`${this.baseUrl}${spec.path}`);
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    return url.toString();
  }

  /** Exponential backoff with jitter: half fixed, half random, so clients that failed together spread out. */
  backoffMs(retry: number): number {
    const ceiling = Math.min(this.#config.retryMaxDelayMs, this.#config.retryBaseDelayMs * 2 ** (retry - 1));
    return Math.round(ceiling / 2 + (this.#random() * ceiling) / 2);
  }

  /**
   * Send with retries. Returns the response (any status) for the caller to interpret, except that a
   * retryable status is retried while attempts remain. Throws NoDecisionError when the service
   * cannot be reached.
   */
  async send(spec: RequestSpec): Promise<ServiceResponse> {
    const url = this.url(spec);
    const canRetry = spec.retry !== false && (spec.body === undefined || spec.body.reopenable);
    const maxAttempts = canRetry ? this.#config.maxAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      let bodyError: unknown;
      let stream: Readable | undefined;
      try {
        if (spec.body) {
          stream = spec.body.open();
          stream.once('error', (error) => {
            bodyError = error;
          });
        }
        const res = await request(url, {
          method: spec.method,
          dispatcher: this.#dispatcher,
          headers: { 'x-api-key': this.#config.apiKey, 'user-agent': 'tfgate', ...spec.headers },
          ...(stream ? { body: stream } : {}),
          headersTimeout: this.#config.headersTimeoutMs,
          bodyTimeout: this.#config.bodyTimeoutMs,
        });
        if (RETRYABLE_STATUSES.has(res.statusCode) && attempt < maxAttempts) {
          const asked = retryAfterMs(res.headers['retry-after']);
          // A wait longer than we are willing to sleep is not retried: the caller gets the status now.
          if (asked === undefined || asked <= this.#config.retryMaxDelayMs) {
            // Only a 502 can be a final answer (FINAL_ERROR_CODES): its body is read to tell.
            const read =
              res.statusCode === 502
                ? { json: await readJsonBody(res.body, MAX_ERROR_BODY_BYTES) }
                : undefined;
            const code = read && this.contractError(read.json)?.code;
            if (read && code !== undefined && FINAL_ERROR_CODES.has(code)) {
              stream?.destroy();
              return {
                status: res.statusCode,
                headers: res.headers,
                body: res.body,
                attempts: attempt,
                read,
              };
            }
            await res.body.dump();
            stream?.destroy();
            const why = `answered HTTP ${res.statusCode}`;
            await this.#retryAfter(spec, why, asked ?? this.backoffMs(attempt), attempt + 1, maxAttempts);
            continue;
          }
        }
        return { status: res.statusCode, headers: res.headers, body: res.body, attempts: attempt };
      } catch (error) {
        // undici destroys the body with the socket's error when the connection dies mid-upload: only the
        // source's own failure (a missing file, terraform show failing) means the plan could not be read.
        const streamError = bodyError ?? stream?.errored ?? undefined;
        stream?.destroy();
        if (streamError !== undefined && !isTransportError(streamError)) {
          throw this.#sourceFailure(spec, streamError);
        }
        const code = connectionErrorCode(error) ?? errorCode(error);
        const retryable = connectionErrorCode(error) !== undefined && !isTlsError(code);
        if (retryable && attempt < maxAttempts) {
          const why = this.#failedAttempt(code);
          await this.#retryAfter(spec, why, this.backoffMs(attempt), attempt + 1, maxAttempts);
          continue;
        }
        throw this.#connectionFailure(spec, error, code, attempt, retryable && !canRetry);
      }
    }
  }

  #sourceFailure(spec: RequestSpec, error: unknown): TfgateError {
    // The source's own error (terraform show refusing a file that is not a plan: exit 2) is the same error
    // whichever route reads the plan: the local bundle's reports it unchanged, and so does the service's.
    if (isTfgateError(error)) return error;
    const what = spec.body?.description ?? 'the request body';
    return new NoDecisionError(
      'plan_unreadable',
      this.redact(`could not read the plan from ${what}: ${(error as Error).message}`),
      {
        hint: 'check that the plan file exists and is readable. Nothing was applied.',
        cause: error,
      },
    );
  }

  #connectionFailure(
    spec: RequestSpec,
    error: unknown,
    code: string | undefined,
    attempts: number,
    notRetriedBecauseOneShot: boolean,
  ): TfgateError {
    const detail = this.redact(`${(error as Error).message ?? String(error)}${code ? ` (${code})` : ''}`);
    const tls = isTlsError(code);
    const afterTries = attempts > 1 ? ` after ${attempts} attempts` : '';
    // Reached, but no answer in time: said as that, with the setting that bounds it (not as unreachable).
    const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
    const message = timedOut
      ? `the tfgate service at ${this.baseUrl} ${this.#failedAttempt(code)} for the ${spec.operation}${afterTries}`
      : `could not reach the tfgate service at ${this.baseUrl} for the ${spec.operation}${afterTries}: ${detail}`;
    let hint: string;
    if (timedOut) {
      const setting =
        code === 'UND_ERR_BODY_TIMEOUT'
          ? `TFGATE_BODY_TIMEOUT_MS (now ${duration(this.#config.bodyTimeoutMs)})`
          : `TFGATE_HEADERS_TIMEOUT_MS (now ${duration(this.#config.headersTimeoutMs)})`;
      hint = `the service took the request and did not answer in time: if it needs longer (a --refresh reads the state backend), raise --timeout <seconds> or ${setting}; else check the service's health. Nothing was applied (fail closed).`;
    } else if (tls) {
      hint =
        "the service's certificate is not trusted: pass its CA with --ca-file <pem> or NODE_EXTRA_CA_CERTS. Nothing was applied.";
    } else if (notRetriedBecauseOneShot && spec.retry !== false) {
      hint = `not retried: the plan came from ${spec.body?.description ?? 'a stream'}, which can only be read once; pass the plan as a file (--plan-json <file>) so a failed upload can be re-sent. Nothing was applied.`;
    } else {
      hint =
        'check --base-url / TFGATE_BASE_URL, the network, and HTTPS_PROXY / NO_PROXY. Nothing was applied (fail closed).';
    }
    return new NoDecisionError(tls ? 'service_tls_error' : 'service_unreachable', message, {
      hint,
      cause: error,
      details: { operation: spec.operation, attempts, ...(code ? { code } : {}) },
    });
  }

  /** Read a JSON body up to a cap; undefined when it is not JSON or too large. Never throws. */
  readJson(res: ServiceResponse): Promise<unknown> {
    return res.read ? Promise.resolve(res.read.json) : readJsonBody(res.body, MAX_JSON_BODY_BYTES);
  }

  /** The contract error body, if the response carries one; its message redacted. */
  contractError(json: unknown): ContractError | undefined {
    const parsed = errorBodySchema.safeParse(json);
    if (!parsed.success) return undefined;
    return { ...parsed.data.error, message: printable(this.redact(parsed.data.error.message)) };
  }

  /** The error for a status the caller does not handle, using the contract error body when it matches. */
  async failure(spec: RequestSpec, res: ServiceResponse, json?: unknown): Promise<TfgateError> {
    const body = this.contractError(json === undefined ? await this.readJson(res) : json);
    return errorForStatus({
      operation: spec.operation,
      status: res.status,
      baseUrl: this.baseUrl,
      attempts: res.attempts,
      ...(spec.packageId ? { packageId: spec.packageId } : {}),
      ...(body ? { body } : {}),
    });
  }
}

/** A response body's bytes, read up to `maxBytes`; undefined (and the body destroyed) when it is larger. */
export async function readBodyBytes(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * A response body as JSON, read up to `maxBytes` by the untrusted-JSON reader (never JSON.parse: see
 * src/json/untrusted.ts); undefined when empty, not JSON, or larger. Never throws.
 */
export async function readJsonBody(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
): Promise<unknown> {
  try {
    const bytes = await readBodyBytes(body, maxBytes);
    if (bytes === undefined || bytes.toString('utf8').trim() === '') return undefined;
    return parseUntrustedJson(bytes, maxBytes);
  } catch {
    return undefined;
  }
}

/** undici's EnvHttpProxyAgent honours HTTP(S)_PROXY and NO_PROXY; the CA goes to direct and tunnelled TLS alike. */
export function createDispatcher(config: ClientConfig): Dispatcher {
  const tls = config.ca ? { ca: config.ca } : {};
  return new EnvHttpProxyAgent({
    // Empty strings keep undici from reading process.env again: the config already read the environment.
    httpProxy: config.proxy.httpProxy ?? '',
    httpsProxy: config.proxy.httpsProxy ?? '',
    noProxy: config.proxy.noProxy ?? '',
    connect: { timeout: config.connectTimeoutMs, ...tls },
    requestTls: { timeout: config.connectTimeoutMs, ...tls },
    ...(config.ca ? { proxyTls: tls } : {}),
  });
}
