// The service's conformance routes, as typed calls. Bodies are trusted only when they match the contract;
// otherwise the documented status semantics decide (interface §4.1, §7).
import { createPublicKey } from 'node:crypto';
import { Readable } from 'node:stream';
import { NoDecisionError } from '../errors/index.js';
import { parseUntrustedJson } from '../json/untrusted.js';
import type { GateResult, Severity } from '../model/index.js';
import type * as z from '../schemas/zod.js';
import { type ClientConfig, type ClientFlags, resolveClientConfig } from './config.js';
import { gateContradiction } from './contradictions.js';
import {
  type RequestSpec,
  readBodyBytes,
  readJsonBody,
  ServiceTransport,
  type TransportDeps,
} from './http.js';
import { lenientGateResultSchema, lenientPublicKeySchema } from './schemas.js';

export const CONFORMANCE_PATH = '/v1/analysis/conformance';

export function packagePath(packageId: string, suffix?: string): string {
  const base = `${CONFORMANCE_PATH}/packages/${encodeURIComponent(packageId)}`;
  return suffix === undefined ? base : `${base}/${suffix}`;
}

export interface GateOutcome {
  decision: 'pass' | 'block';
  /** The service's body when it matched the contract; otherwise a result built from the status alone. */
  result: GateResult;
  /** Set when the decision came from the status code only: says why there are no details. */
  detailsUnavailable?: string;
}

export type BundleDownload =
  | { status: 'not-modified' }
  | { status: 'downloaded'; bytes: Buffer; etag?: string };

const MAX_BUNDLE_BYTES = 256 * 1024 * 1024;
/** A PEM or JSON public key is a few kilobytes; anything much larger is not one. */
const MAX_PUBLIC_KEY_BYTES = 1024 * 1024;
/** Every management answer (a created key, a push receipt) is small. */
const MAX_MANAGEMENT_BODY_BYTES = 1024 * 1024;

/** A management call: what to send, and what answer is accepted (status and the contract's schema). */
export interface ManagementCall<S extends z.ZodMiniType> {
  request: RequestSpec;
  /** The call, for messages: "creating the API key", "the observed state push". */
  what: string;
  /** A JSON body (sent whole; the call may be retried) or a stream (`request.body`). */
  json?: unknown;
  /** The success status, or each accepted one (PUT of a package: 201 created, 200 updated). */
  status: number | readonly number[];
  schema: S;
}

/** RFC 9110 entity-tag: `"…"` or `W/"…"`, visible ASCII inside. Capped: an ETag is a revision, not a payload. */
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e]{0,256}"$/;

/**
 * The bundle's ETag when it is a well-formed entity-tag, else none: the cache then keys on nothing and the
 * next pull downloads again, rather than storing and sending back whatever the header held.
 */
export function entityTag(header: string | string[] | undefined): string | undefined {
  const tag = Array.isArray(header) ? header[0] : header;
  return tag !== undefined && ENTITY_TAG.test(tag) ? tag : undefined;
}

export class ServiceClient {
  readonly transport: ServiceTransport;

  constructor(config: ClientConfig, deps: TransportDeps = {}) {
    this.transport = new ServiceTransport(config, deps);
  }

  static async fromOptions(
    flags: ClientFlags,
    env: NodeJS.ProcessEnv = process.env,
    deps: TransportDeps = {},
  ) {
    return new ServiceClient(await resolveClientConfig(flags, env), deps);
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /**
   * `POST …/gate?fail_status=true`: 409 is a block whatever the body says, so this works against any
   * implementation of the interface; 200 is a pass only when its body is the contract's gate result saying
   * so (a proxy's or login page's 200 is no decision). A 409 whose body is the contract's
   * package_not_approved error is that error, not a block.
   */
  async gate(packageId: string, options: { minSeverity: Severity; refresh?: boolean }): Promise<GateOutcome> {
    const spec: RequestSpec = {
      operation: 'gate',
      method: 'POST',
      path: packagePath(packageId, 'gate'),
      packageId,
      query: {
        fail_status: 'true',
        min_severity: options.minSeverity,
        ...(options.refresh ? { refresh: 'true' } : {}),
      },
      headers: { accept: 'application/json' },
    };
    const res = await this.transport.send(spec);
    if (res.status !== 200 && res.status !== 409) throw await this.transport.failure(spec, res);
    const json = await this.transport.readJson(res);
    const decision = res.status === 200 ? 'pass' : 'block';
    if (res.status === 409) {
      const error = this.transport.contractError(json);
      if (error && error.code !== 'gate_blocked') throw await this.transport.failure(spec, res, json);
    }
    const parsed = lenientGateResultSchema.safeParse(json);
    if (parsed.success) {
      // A body about another package or threshold, with another decision, or with a decision its own
      // findings contradict, answers some other question: no decision.
      const contradiction =
        parsed.data.decision !== decision
          ? `its body says "${parsed.data.decision}"`
          : gateContradiction(parsed.data, { packageId, minSeverity: options.minSeverity });
      if (contradiction) {
        throw new NoDecisionError(
          'contradictory_response',
          `the service answered the gate of package "${packageId}" with HTTP ${res.status} (${decision}) but ${contradiction}`,
          { hint: 'the service is inconsistent; no decision was taken. Report it to the service operators.' },
        );
      }
      return { decision, result: parsed.data };
    }
    if (res.status === 200) {
      // Only a block may be taken from the status alone: a pass needs the body that says so.
      throw new NoDecisionError(
        'unreadable_gate',
        `the service at ${this.baseUrl} answered the gate of package "${packageId}" with HTTP 200 but a body that is not the contract's gate result`,
        {
          hint: 'check --base-url / TFGATE_BASE_URL points at the tfgate service (not a proxy or login page); no decision was taken (fail closed)',
        },
      );
    }
    return {
      decision,
      result: {
        package_id: packageId,
        decision,
        min_severity: options.minSeverity,
        refreshed: options.refresh === true,
        drift_checked_at: '',
        blocking: [],
        acknowledged: [],
        counts: { open: 0, acknowledged: 0, blocking: 0 },
      },
      detailsUnavailable: `the service answered HTTP ${res.status} without a body tfgate could read, so no findings are shown`,
    };
  }

  /** `GET …/bundle`, conditional on the cached ETag: 304 means the cache is current. */
  async bundle(packageId: string, etag?: string): Promise<BundleDownload> {
    const spec: RequestSpec = {
      operation: 'bundle',
      method: 'GET',
      path: packagePath(packageId, 'bundle'),
      packageId,
      headers: {
        accept: 'application/gzip, application/octet-stream',
        ...(etag ? { 'if-none-match': etag } : {}),
      },
    };
    const res = await this.transport.send(spec);
    if (res.status === 304 && etag) {
      await res.body.dump();
      return { status: 'not-modified' };
    }
    if (res.status !== 200) throw await this.transport.failure(spec, res);
    const bytes = await readBodyBytes(res.body, MAX_BUNDLE_BYTES);
    if (bytes === undefined) {
      throw new NoDecisionError('bundle_too_large', `the bundle of package "${packageId}" exceeds 256 MiB`, {
        hint: 'check --base-url: a policy bundle is small',
      });
    }
    const tag = entityTag(res.headers.etag);
    return { status: 'downloaded', bytes, ...(tag ? { etag: tag } : {}) };
  }

  /** `GET /public-key` as PEM; a JSON answer in the contract's shape is accepted too. The key is checked to parse. */
  async publicKeyPem(): Promise<string> {
    const spec: RequestSpec = {
      operation: 'public key',
      method: 'GET',
      path: `${CONFORMANCE_PATH}/public-key`,
      headers: { accept: 'application/x-pem-file, application/json;q=0.5' },
    };
    const res = await this.transport.send(spec);
    if (res.status !== 200) throw await this.transport.failure(spec, res);
    const text = (await readBodyBytes(res.body, MAX_PUBLIC_KEY_BYTES))?.toString('utf8') ?? '';
    let pem = text;
    if (!text.includes('-----BEGIN')) {
      let json: unknown;
      try {
        json = parseUntrustedJson(text, MAX_PUBLIC_KEY_BYTES);
      } catch {
        json = undefined;
      }
      const parsed = lenientPublicKeySchema.safeParse(json);
      pem = parsed.success ? parsed.data.public_key : '';
    }
    try {
      createPublicKey(pem);
    } catch {
      throw new NoDecisionError(
        'invalid_public_key',
        `the service at ${this.baseUrl} returned no usable public key`,
        {
          hint: 'check --base-url; the key must be a PEM (SPKI) public key. No bundle can be trusted without it.',
        },
      );
    }
    return pem.endsWith('\n') ? pem : `${pem}\n`;
  }

  /**
   * A management call (`keys create`, `state push`) through the same transport as every other call. Its
   * answer is used only when the status is the expected one and the body matches the contract's schema:
   * nothing from any other body is printed or used.
   */
  async call<S extends z.ZodMiniType>(call: ManagementCall<S>): Promise<z.output<S>> {
    const spec: RequestSpec =
      call.json === undefined
        ? call.request
        : {
            ...call.request,
            headers: { ...call.request.headers, 'content-type': 'application/json' },
            body: jsonBody(call.json),
          };
    const res = await this.transport.send({
      ...spec,
      headers: { accept: 'application/json', ...spec.headers },
    });
    if (res.status >= 400) throw await this.transport.failure(spec, res);
    const json = await readJsonBody(res.body, MAX_MANAGEMENT_BODY_BYTES);
    const accepted: readonly number[] = typeof call.status === 'number' ? [call.status] : call.status;
    const parsed = accepted.includes(res.status) ? call.schema.safeParse(json) : undefined;
    if (!parsed?.success) {
      // Never echo the body: it is not what the contract promises, and may hold anything.
      throw new NoDecisionError(
        'unexpected_response',
        `the service at ${this.baseUrl} answered ${call.what} with HTTP ${res.status} and a body that is not the contract's (expected HTTP ${accepted.join(' or ')}); nothing from it was used`,
        {
          hint: 'check that --base-url / TFGATE_BASE_URL points at the tfgate service itself (not a proxy, a login page or another API), then try again',
        },
      );
    }
    return parsed.data;
  }
}

/** A JSON request body, re-sent whole on a retry. */
function jsonBody(value: unknown): NonNullable<RequestSpec['body']> {
  const bytes = Buffer.from(JSON.stringify(value));
  return { open: () => Readable.from([bytes]), reopenable: true, description: 'the request' };
}
