// The request's body as each route's spec says: its media type checked (415), JSON read by the untrusted-JSON
// reader within the small-body limit and validated by the route's schema, text read whole, or a stream.
import type { IncomingMessage } from 'node:http';
import { JsonScanError, parseUntrustedJson } from '../../json/untrusted.js';
import type * as z from '../../schemas/zod.js';
import { type RequestBody, readSmallBody } from '../core/body.js';
import { ServiceError } from '../core/errors.js';
import { dottedPathText, refuseUnstorableText, unstorableTextError } from '../core/storable-text.js';
import type { BodySpec } from './router.js';

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function unsupportedMediaType(got: string, allowed: readonly string[]): ServiceError {
  return new ServiceError(
    415,
    'unsupported_media_type',
    `Content-Type ${got ? `"${got}"` : '(none)'} is not accepted here; send ${allowed.join(' or ')}`,
    { details: { allowed } },
  );
}

/** The body as bytes and its declared length: what the core reads, never the Node request itself. */
export function requestBody(req: IncomingMessage): RequestBody {
  const declared = Number(req.headers['content-length']);
  return { stream: req, declaredLength: Number.isFinite(declared) ? declared : undefined };
}

/** One step of the reader's path: `.name`, `[1]`, or `["odd key"]` (a JSON string). */
const PATH_STEP = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/** The reader's path ('$.a["b c"][1]') in the store check's dotted form ("a.b c.1"). */
function dottedPath(path: string | undefined): string {
  const text = path ?? '$';
  const keys: string[] = [];
  PATH_STEP.lastIndex = 1;
  for (let step = PATH_STEP.exec(text); step; step = PATH_STEP.exec(text)) {
    // The quoted step is the reader's own JSON.stringify of a key; read it back with the untrusted reader.
    keys.push(step[1] ?? step[2] ?? (parseUntrustedJson(step[3]!) as string));
  }
  return dottedPathText(keys);
}

/** A body that is not JSON is 400; an unpaired surrogate is named as the store's check names it. */
function notJson(error: unknown): unknown {
  if (!(error instanceof JsonScanError)) return error;
  if (error.loneSurrogate !== undefined) {
    return unstorableTextError('invalid_parameter', 'the request body', {
      path: dottedPath(error.path),
      problem: `an unpaired surrogate (U+${error.loneSurrogate})`,
    });
  }
  return new ServiceError(400, 'invalid_parameter', `the request body is not JSON: ${error.message}`);
}

async function readJson(body: RequestBody, schema: z.ZodMiniType, limit: number): Promise<unknown> {
  const bytes = await readSmallBody(body, limit);
  let parsed: unknown;
  try {
    // Not JSON.parse: on Node 24/26 it can read an escaped key as another (nodejs/node#63785).
    parsed = parseUntrustedJson(bytes, limit);
  } catch (error) {
    throw notJson(error);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.length > 0 ? `"${issue.path.join('.')}"` : 'the body';
    throw new ServiceError(400, 'invalid_parameter', `invalid ${where}: ${issue.message}`, {
      details: { path: issue.path.map(String) },
    });
  }
  refuseUnstorableText(result.data, 'invalid_parameter', 'the request body');
  return result.data;
}

/** Reads the body `spec` describes: the parsed JSON (undefined when optional and absent), text, or the stream. */
export async function readRequestBody(req: IncomingMessage, spec: BodySpec, limit: number): Promise<unknown> {
  const type = mediaType(req);
  const body = requestBody(req);
  if (spec.kind === 'json') {
    const hasBody = (body.declaredLength ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody && spec.optional) return undefined;
    if (type !== 'application/json') throw unsupportedMediaType(type, ['application/json']);
    return readJson(body, spec.schema, limit);
  }
  if (!spec.contentTypes.includes(type)) throw unsupportedMediaType(type, spec.contentTypes);
  if (spec.kind === 'text') return utf8Text(await readSmallBody(body, limit));
  return body;
}

/** The body as text; bytes that are not UTF-8 are refused, never replaced with U+FFFD and stored so. */
function utf8Text(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ServiceError(
      400,
      'invalid_parameter',
      'the request body is not UTF-8 text; send the document encoded as UTF-8',
    );
  }
}
