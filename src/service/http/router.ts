// Our own small typed router: routes are data (method, path, access rule, query table, body, responses,
// handler) and each handler gets its path parameters, query, body, principal and package typed from that
// same data. Chosen over Hono (@hono/zod-openapi on @hono/node-server) by measurement on Node 26 with the
// gate's request shape (src/service/README.md, "Routing"): node:http with this route table answered ~39,500
// req/s with 50 clients, Hono ~16,000–24,000; Hono's ~17 µs more per request would cost the gate ~15–20%.
import type { IncomingHttpHeaders } from 'node:http';
import type * as z from '../../schemas/zod.js';
import type { AccessRule } from '../core/auth.js';
import type { RequestBody } from '../core/body.js';
import type { ServiceContext } from '../core/context.js';
import { invalidParameter, ServiceError } from '../core/errors.js';
import type { PackageRecord } from '../store/index.js';
import type { Principal } from '../types.js';

export interface QueryParam<V extends string = string> {
  description: string;
  /** Allowed values; the 400 lists them. */
  values?: readonly V[];
  /** A whole number in this range. */
  integer?: { min: number; max: number };
  default?: NoInfer<V>;
}

export type QueryTable = Record<string, QueryParam>;

/** The handler's query: each parameter's allowed values, never undefined when it has a default. */
export type QueryOf<Q extends QueryTable> = {
  [K in keyof Q]: Q[K] extends QueryParam<infer V>
    ? Q[K] extends { default: string }
      ? V
      : V | undefined
    : never;
};

export type BodySpec =
  | { kind: 'json'; schema: z.ZodMiniType; optional?: boolean }
  /** Read as a stream by the handler; the content type is checked first (415). */
  | { kind: 'stream'; contentTypes: readonly string[]; description: string }
  /** Small text body (a design document) of one of these types. */
  | { kind: 'text'; contentTypes: readonly string[]; description: string };

/** The handler's body: the JSON as its schema parsed it, the text, or the stream. */
export type BodyOf<B extends BodySpec | undefined> = B extends {
  kind: 'json';
  schema: infer S extends z.ZodMiniType;
}
  ? B extends { optional: true }
    ? z.output<S> | undefined
    : z.output<S>
  : B extends { kind: 'text' }
    ? string
    : B extends { kind: 'stream' }
      ? RequestBody
      : undefined;

/** The names in a path template: "/a/{id}/b/{name}" → "id" | "name". */
export type PathParameterNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | PathParameterNames<Rest>
  : never;

export interface ResponseSpec {
  description: string;
  schema?: z.ZodMiniType;
  /** Other representations (e.g. the PEM key, the bundle tarball). */
  content?: Record<string, string>;
}

export interface Reply {
  status: number;
  json?: unknown;
  raw?: { body: Buffer | string; contentType: string };
  headers?: Record<string, string>;
}

/** What a handler gets, typed from its route's own path, access rule, query table and body. */
export interface HandlerInput<
  P extends string,
  A extends AccessRule | null,
  Q extends QueryTable,
  B extends BodySpec | undefined,
> {
  ctx: ServiceContext;
  headers: IncomingHttpHeaders;
  /** The client's address as limits count it (rate-limit.ts `clientAddress`: IPv6 by its /64). */
  client: string;
  params: Record<PathParameterNames<P>, string>;
  query: QueryOf<Q>;
  body: BodyOf<B>;
  principal: A extends AccessRule ? Principal : undefined;
  pkg: A extends { pkg: 'existing' | 'approved' } ? PackageRecord : null;
}

export interface RouteSpec<
  P extends string = string,
  A extends AccessRule | null = AccessRule | null,
  Q extends QueryTable = QueryTable,
  B extends BodySpec | undefined = BodySpec | undefined,
> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: P;
  operationId: string;
  summary: string;
  tag: 'conformance' | 'management' | 'admin' | 'operations';
  /** null: no API key (health, OpenAPI). */
  access: A;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseSpec>;
  /** Errors this route may answer with besides the access checks (for the OpenAPI document). */
  errors?: Array<{ status: number; codes: string[] }>;
  handler(input: HandlerInput<P, A, Q, B>): Promise<Reply>;
}

/** What the dispatcher has checked and read, before it knows the route's types. */
export interface CheckedRequest {
  ctx: ServiceContext;
  headers: IncomingHttpHeaders;
  client: string;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  principal: Principal | undefined;
  pkg: PackageRecord | null;
}

/** A route as the dispatcher and the OpenAPI generator see it. */
export interface Route extends Omit<RouteSpec, 'handler'> {
  handler(input: CheckedRequest): Promise<Reply>;
}

/**
 * A route with its handler typed from the route's own data. The dispatcher checks every part against that
 * data before the handler runs (the access rule gave the principal, and the package when the rule names one;
 * the query table and body spec validated the rest), so this is the one place that restates what it
 * checked as the route's types.
 */
export function defineRoute<
  const P extends string,
  const A extends AccessRule | null,
  const Q extends QueryTable = Record<never, QueryParam>,
  const B extends BodySpec | undefined = undefined,
>(spec: RouteSpec<P, A, Q, B>): Route {
  return { ...spec, handler: (input) => spec.handler(input as HandlerInput<P, A, Q, B>) };
}

export interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

export function compileRoutes(routes: readonly Route[]): CompiledRoute[] {
  return routes.map((route) => {
    const names: string[] = [];
    const source = route.path
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\\\{(\w+)\\\}/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
    return { route, pattern: new RegExp(`^${source}$`), names };
  });
}

export type Match =
  | {
      kind: 'found';
      route: Route;
      params: Record<string, string>;
      /**
       * A path parameter that cannot name anything (malformed percent-encoding, invalid UTF-8, a control
       * character): the 400 the caller answers once the key is checked, before any parameter reaches SQL.
       */
      invalidParameter?: ServiceError;
    }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

export function match(routes: readonly CompiledRoute[], method: string, path: string): Match {
  const allowed: string[] = [];
  for (const compiled of routes) {
    const m = compiled.pattern.exec(path);
    if (!m) continue;
    if (compiled.route.method !== method) {
      allowed.push(compiled.route.method);
      continue;
    }
    const params: Record<string, string> = {};
    let invalidParameter: ServiceError | undefined;
    for (const [i, name] of compiled.names.entries()) {
      const decoded = decodePathParameter(name, m[i + 1]!);
      if (decoded instanceof ServiceError) invalidParameter ??= decoded;
      else params[name] = decoded;
    }
    return {
      kind: 'found',
      route: compiled.route,
      params,
      ...(invalidParameter ? { invalidParameter } : {}),
    };
  }
  return allowed.length > 0 ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
}

/** Unicode Cc: C0 controls (NUL among them), DEL and C1 controls. No identifier holds one, and PostgreSQL refuses NUL. */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** One path segment, percent-decoded as UTF-8, or the 400 that names what is wrong with it. */
export function decodePathParameter(name: string, raw: string): string | ServiceError {
  const refuse = (problem: string) =>
    new ServiceError(
      400,
      'invalid_parameter',
      `the path parameter "${name}" ${problem}; send it as UTF-8 text, percent-encoded, without control characters`,
      { details: { parameter: name } },
    );
  let value: string;
  try {
    // Throws on a stray "%", a bad hex pair, and bytes that are not UTF-8 (overlong forms, surrogates).
    value = decodeURIComponent(raw);
  } catch {
    return refuse('is not valid percent-encoded UTF-8');
  }
  const control = CONTROL_CHARACTER.exec(value);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return refuse(`contains the control character U+${code}`);
  }
  return value;
}

/** Validates the query against the route's table: unknown, repeated or out-of-range values are 400. */
export function parseQuery(
  table: QueryTable | undefined,
  search: URLSearchParams,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  const names = Object.keys(table ?? {});
  for (const key of new Set(search.keys())) {
    if (!table || !(key in table)) {
      throw new ServiceError(
        400,
        'invalid_parameter',
        names.length === 0
          ? `unknown query parameter "${key}": this call takes none`
          : `unknown query parameter "${key}"; allowed parameters: ${names.join(', ')}`,
        { details: { parameter: key, allowed: names } },
      );
    }
  }
  for (const [name, spec] of Object.entries(table ?? {})) {
    const values = search.getAll(name);
    if (values.length > 1) {
      throw new ServiceError(
        400,
        'invalid_parameter',
        `query parameter "${name}" is given ${values.length} times; give it once`,
      );
    }
    const value = values[0];
    if (value === undefined) {
      out[name] = spec.default;
      continue;
    }
    if (spec.values && !spec.values.includes(value)) throw invalidParameter(name, spec.values, value);
    if (spec.integer) {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < spec.integer.min || n > spec.integer.max) {
        throw new ServiceError(
          400,
          'invalid_parameter',
          `invalid value ${JSON.stringify(value)} for "${name}"; allowed values: a whole number from ${spec.integer.min} to ${spec.integer.max}`,
          { details: { parameter: name } },
        );
      }
    }
    out[name] = value;
  }
  return out;
}

export const BOOLEAN_VALUES = ['true', 'false'] as const;
