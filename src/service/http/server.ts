// node:http wiring: request ids, the contract's check order, bodies, errors, one log line per request.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorMessage } from '../../errors/index.js';
import { authenticate, authorize } from '../core/auth.js';
import type { ServiceContext } from '../core/context.js';
import { ServiceError } from '../core/errors.js';
import { type PackageRecord, StoreError } from '../store/index.js';
import type { Principal } from '../types.js';
import { buildOpenApi } from './openapi.js';
import { clientAddress, FailureThrottle, RateLimiter } from './rate-limit.js';
import { readRequestBody } from './request-body.js';
import { compileRoutes, defineRoute, match, parseQuery, type Reply, type Route } from './router.js';
import { BASE_PATH, ROUTES } from './routes.js';
import { healthSchema } from './schemas.js';
import { storeErrorReply } from './store-errors.js';
import { handleUi, isUiPath } from './ui/handler.js';
import { SIGN_IN_THROTTLE } from './ui/sign-in.js';

/** Wrong API keys an address may send at once, then one a second (sign-in allows 10, then one a minute). */
export const API_KEY_FAILURES = { burst: 100, perMinute: 60, maxAddresses: 10_000 };

export interface ServiceServer {
  server: Server;
  routes: readonly Route[];
  /** The request listener, attached to `server`; requests held while the service started are handed to it. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Stops accepting, lets in-flight requests finish (up to `timeoutMs`), then closes what is left. */
  shutdown(timeoutMs: number): Promise<void>;
}

function requestUrl(target: string | undefined): URL {
  try {
    return new URL(target ?? '/', 'http://service');
  } catch {
    throw new ServiceError(
      400,
      'invalid_request',
      'the request target is not a valid URL path; send an absolute path such as /healthz, percent-encoded',
    );
  }
}

/**
 * Node's HTTP parser refuses a malformed request (control or non-ASCII bytes in the request line, a header
 * too large) before any handler runs, answering a bare 400: answer with the contract's error body instead.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'the request did not arrive in time']
        : [
            400,
            'Bad Request',
            'the request is not valid HTTP/1.1 (a control or non-ASCII byte in the request line or a header?); percent-encode the path as UTF-8',
          ];
  const body = JSON.stringify({ error: { code: 'invalid_request', message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The HTTP server, not yet serving: start-up binds it before opening the store (a port in use is said before
 * a store is created), and createServiceServer attaches the service to it.
 */
export function createHttpServer(config: { requestTimeout: number }): Server {
  // requireHostHeader off: Node's own check answered a bare 400 with no body; handle() refuses it instead.
  // Node enforces the request timeout only when it checks its connections (every 30 s by default), so a
  // 3 s limit let a slow sender hold a connection for up to 30 s: check at a tenth of the limit instead.
  return createServer({
    requestTimeout: config.requestTimeout,
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(config.requestTimeout / 10))),
    keepAliveTimeout: 5000,
    requireHostHeader: false,
  });
}

export function createServiceServer(ctx: ServiceContext, version: string, server: Server): ServiceServer {
  let draining = false;
  const operational: Route[] = [
    defineRoute({
      method: 'GET',
      path: '/healthz',
      operationId: 'healthz',
      summary: 'Liveness: the process answers',
      tag: 'operations',
      access: null,
      responses: { 200: { description: 'alive', schema: healthSchema } },
      handler: async () => ({ status: 200, json: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      operationId: 'readyz',
      summary: 'Readiness: the store answers and the instance is not shutting down',
      tag: 'operations',
      access: null,
      responses: {
        200: { description: 'ready', schema: healthSchema },
        503: { description: 'not ready', schema: healthSchema },
      },
      async handler({ ctx }) {
        if (draining) return { status: 503, json: { status: 'shutting_down' } };
        try {
          await ctx.store.ping();
          return { status: 200, json: { status: 'ready' } };
        } catch {
          return { status: 503, json: { status: 'store_unavailable' } };
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${BASE_PATH}/openapi.json`,
      operationId: 'openapi',
      summary: 'This OpenAPI 3.1 document',
      tag: 'operations',
      access: null,
      responses: { 200: { description: 'the document' } },
      handler: async () => ({ status: 200, json: openapi }),
    }),
  ];
  const routes = [...ROUTES, ...operational];
  const openapi = buildOpenApi(routes, version);
  const compiled = compileRoutes(routes);
  const limiter = new RateLimiter(
    ctx.config.rateLimit,
    ctx.config.rateBurst ?? Math.max(1, Math.ceil(ctx.config.rateLimit * 2)),
  );
  /** Counts one request of an API key (API and /ui alike); the 429 once its bucket is empty. */
  const takeKeyRequest = (keyId: string): void => {
    const wait = limiter.take(keyId);
    if (wait > 0) {
      throw new ServiceError(
        429,
        'rate_limited',
        `too many requests for this API key; retry after ${wait} s`,
        {
          headers: { 'Retry-After': String(wait) },
        },
      );
    }
  };
  const signIns = new FailureThrottle({ ...SIGN_IN_THROTTLE, on: ctx.config.addressLimits === 'on' });
  // Wrong API keys, counted by address as the dashboard's sign-ins are: guessing a key (an operator's short
  // bootstrap key) went at ~1,600 tries a second. Looser than sign-in: many CI jobs share one NAT address.
  const keyFailures = new FailureThrottle({ ...API_KEY_FAILURES, on: ctx.config.addressLimits === 'on' });

  async function dispatch(req: IncomingMessage, url: URL, log: Record<string, unknown>): Promise<Reply> {
    const found = match(compiled, req.method ?? 'GET', url.pathname);
    if (found.kind === 'not_found') {
      throw new ServiceError(
        404,
        'not_found',
        `no route ${req.method} ${url.pathname}; see ${BASE_PATH}/openapi.json`,
      );
    }
    if (found.kind === 'method_not_allowed') {
      throw new ServiceError(
        405,
        'method_not_allowed',
        `${req.method} is not allowed on ${url.pathname}; use ${found.allowed.join(', ')}`,
        {
          headers: { Allow: found.allowed.join(', ') },
        },
      );
    }
    const { route, params, invalidParameter } = found;
    log.route = route.operationId;
    // The client's address, counted by key failures and given to the handler (the run task's throttle).
    const client = clientAddress(req.socket.remoteAddress);
    let principal: Principal | undefined;
    let pkg: PackageRecord | null = null;
    if (route.access) {
      const header = req.headers['x-api-key'];
      // Refused before any key is looked up, a right one too: a locked-out address learns nothing.
      const wait = keyFailures.retryAfter(client);
      if (wait > 0) {
        throw new ServiceError(
          429,
          'rate_limited',
          `too many requests with a wrong API key from your address; retry after ${wait} s`,
          { headers: { 'Retry-After': String(wait) } },
        );
      }
      // A malformed path parameter never reaches SQL: the key is looked up without it.
      const authenticated = await authenticate(
        ctx.store,
        Array.isArray(header) ? header[0] : header,
        invalidParameter ? undefined : params.package_id,
      ).catch((error: unknown) => {
        if (error instanceof ServiceError && error.status === 401 && keyFailures.fail(client)) {
          ctx.log.warn('API key failures: address locked out', {
            client_address: client,
            retry_after_s: keyFailures.retryAfter(client),
          });
        }
        throw error;
      });
      log.account = authenticated.principal.account;
      log.key_id = authenticated.principal.keyId;
      takeKeyRequest(authenticated.principal.keyId);
      if (invalidParameter) {
        // The contract's order up to the scope and plan checks; then 400 where 404 would be looked up.
        authorize(authenticated, { ...route.access, pkg: undefined }, undefined);
        throw invalidParameter;
      }
      ({ principal, pkg } = authorize(authenticated, route.access, params.package_id));
    }
    if (invalidParameter) throw invalidParameter;
    const query = parseQuery(route.query, url.searchParams);
    const body = route.body ? await readRequestBody(req, route.body, ctx.config.maxJsonBody) : undefined;
    return route.handler({ ctx, headers: req.headers, client, params, query, body, principal, pkg });
  }

  function send(res: ServerResponse, reply: Reply, requestId: string): void {
    const headers: Record<string, string> = { 'X-Request-Id': requestId, ...reply.headers };
    if (draining) headers.Connection = 'close';
    if (reply.json !== undefined) {
      const text = JSON.stringify(reply.json);
      res.writeHead(reply.status, {
        ...headers,
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(text),
      });
      res.end(text);
    } else if (reply.raw) {
      res.writeHead(reply.status, {
        ...headers,
        'Content-Type': reply.raw.contentType,
        'Content-Length': Buffer.byteLength(reply.raw.body),
      });
      res.end(reply.raw.body);
    } else {
      res.writeHead(reply.status, headers);
      res.end();
    }
  }

  function errorReply(thrown: unknown, log: Record<string, unknown>): Reply {
    const error = thrown instanceof StoreError ? storeErrorReply(thrown) : thrown;
    if (error instanceof ServiceError) {
      log.error = error.code;
      return {
        status: error.status,
        json: {
          ...error.body,
          error: {
            code: error.code,
            message: error.message,
            ...(error.details ? { details: error.details } : {}),
          },
        },
        headers: error.headers,
      };
    }
    log.error = 'internal_error';
    log.error_message = errorMessage(error);
    return {
      status: 500,
      json: {
        error: {
          code: 'internal_error',
          message: `the service failed to answer (request id ${log.request_id}); see the service log`,
        },
      },
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    // Never the X-Api-Key header: only its key id, once known.
    const log: Record<string, unknown> = { request_id: requestId, method: req.method };
    res.on('close', () => {
      log.status = res.statusCode;
      log.duration_ms = Math.round((performance.now() - started) * 100) / 100;
      if (!res.writableFinished) log.aborted = true;
      ctx.log.info('request', log);
    });
    let reply: Reply;
    try {
      // Inside the try: an absolute-form target such as `http://[::1` does not parse, and must answer 400
      // rather than throw out of the request handler (which took the whole process down).
      const url = requestUrl(req.url);
      log.path = url.pathname;
      if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
        throw new ServiceError(
          400,
          'invalid_request',
          'the request has no Host header, which HTTP/1.1 requires: send Host with the service address',
        );
      }
      reply = isUiPath(url.pathname)
        ? await handleUi(ctx, req, url, takeKeyRequest, signIns)
        : await dispatch(req, url, log);
    } catch (error) {
      reply = errorReply(error, log);
      if (reply.status >= 500)
        ctx.log.error('request failed', { request_id: requestId, error: log.error_message ?? log.error });
    }
    if (res.headersSent || res.destroyed) return;
    // A body still arriving after an early answer (413, 400): answer, then close rather than drain gigabytes.
    if (!req.complete) {
      const socket = req.socket;
      reply.headers = { ...reply.headers, Connection: 'close' };
      res.on('finish', () => {
        req.resume();
        setTimeout(() => socket?.destroy(), 2000).unref();
      });
    }
    send(res, reply, requestId);
  }

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    // Never an unhandled rejection: it would stop the process and every request in flight.
    handle(req, res).catch((error: unknown) => {
      ctx.log.error('request failed', { error: errorMessage(error) });
      res.destroy();
    });
  };
  server.on('request', listener);
  server.on('clientError', answerClientError);

  return {
    server,
    routes,
    handle: listener,
    shutdown(timeoutMs) {
      draining = true;
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
        }, timeoutMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
