// Request bodies are streamed: bytes are counted as they arrive and the upload is cut off at the limit.
import type { IncomingMessage } from 'node:http';
import { ServiceError } from './errors.js';

export function payloadTooLarge(limit: number): ServiceError {
  return new ServiceError(
    413,
    'payload_too_large',
    `the request body is larger than the limit of ${limit} bytes; the operator can raise it with --max-body (TFGATE_MAX_BODY)`,
    { details: { limit_bytes: limit } },
  );
}

/** A byte-counting view of the request body; `exceeded` tells whether it was cut off at the limit. */
export function limitedBody(
  req: IncomingMessage,
  limit: number,
): { chunks: AsyncIterable<Uint8Array>; exceeded(): boolean } {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw payloadTooLarge(limit);
  let seen = 0;
  let exceeded = false;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (seen > limit) {
        exceeded = true;
        throw payloadTooLarge(limit);
      }
      yield chunk;
    }
  }
  return { chunks: chunks(), exceeded: () => exceeded };
}

/** Small bodies (JSON, designs): read whole, up to `limit` bytes. */
export async function readSmallBody(req: IncomingMessage, limit: number): Promise<string> {
  const { chunks } = limitedBody(req, limit);
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}
