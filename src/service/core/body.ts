// Request bodies are streamed: bytes are counted as they arrive and the upload is cut off at the limit.
// The core sees a body as bytes and the length the sender declared, never as a Node request object.
import { ServiceError } from './errors.js';

export interface RequestBody {
  /** The body's bytes as they arrive. */
  stream: AsyncIterable<Uint8Array>;
  /** The Content-Length the sender declared, if any (checked against the limit before reading). */
  declaredLength: number | undefined;
}

/** The setting that raises the plan and state upload limit; other limits (JSON bodies, run tasks) are fixed. */
export const MAX_BODY_SETTING = '--max-body (TFGATE_MAX_BODY)';

/** 413, saying how the operator raises the limit when a setting does (`raisedBy`); a fixed limit says none. */
export function payloadTooLarge(limit: number, raisedBy?: string): ServiceError {
  const how = raisedBy === undefined ? '' : `; the operator can raise it with ${raisedBy}`;
  return new ServiceError(
    413,
    'payload_too_large',
    `the request body is larger than the limit of ${limit} bytes${how}`,
    { details: { limit_bytes: limit } },
  );
}

/** A byte-counting view of the request body; `exceeded` tells whether it was cut off at the limit. */
export function limitedBody(
  body: RequestBody,
  limit: number,
  raisedBy?: string,
): { chunks: AsyncIterable<Uint8Array>; exceeded(): boolean } {
  if (body.declaredLength !== undefined && body.declaredLength > limit)
    throw payloadTooLarge(limit, raisedBy);
  let seen = 0;
  let exceeded = false;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of body.stream) {
      seen += chunk.length;
      if (seen > limit) {
        exceeded = true;
        throw payloadTooLarge(limit, raisedBy);
      }
      yield chunk;
    }
  }
  return { chunks: chunks(), exceeded: () => exceeded };
}

/** Small bodies (JSON, designs): read whole, up to `limit` bytes. */
export async function readSmallBody(body: RequestBody, limit: number): Promise<Buffer> {
  const { chunks } = limitedBody(body, limit);
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}
