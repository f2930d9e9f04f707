import type { Readable } from 'node:stream';
import { errorMessage, InvalidPlanError, isTfgateError } from '../errors/index.js';
import { JsonScanError, type JsonScanner } from './scanner/index.js';

/** Chunks are taken in at once: the reader may reuse a chunk's memory when the next is asked for. */
export type JsonInput = Readable | AsyncIterable<Uint8Array | string>;

export interface ScanContext {
  /** Names the input in messages: a path, "stdin", ... */
  description: string;
  /** What the input should be, for messages: "a Terraform plan". */
  expected: string;
  /** How to produce a valid input. */
  hint: string;
}

/** Longer than any JSON literal and the text preview of an error message. */
const FIRST_WRITE_BYTES = 64;

/** Feed a byte stream through the scanner; every failure becomes an InvalidPlanError naming the input. */
export async function scanStream(
  input: JsonInput,
  scanner: JsonScanner,
  context: ScanContext,
): Promise<unknown> {
  try {
    // The first bytes are held until a word fits, so a pipe's tiny first chunk ("t") cannot make text look
    // like a literal ("found a boolean"); held to the end, they are the whole input.
    let head: Buffer[] | undefined = [];
    let headBytes = 0;
    for await (const chunk of input as AsyncIterable<Uint8Array | string>) {
      const buf = toBuffer(chunk);
      if (head === undefined || (headBytes === 0 && buf.length >= FIRST_WRITE_BYTES)) {
        head = undefined;
        scanner.write(buf);
        continue;
      }
      // A copy: a reader may reuse a chunk's memory once it is taken in (consumedChunks).
      head.push(Buffer.from(buf));
      headBytes += buf.length;
      if (headBytes < FIRST_WRITE_BYTES) continue;
      scanner.write(Buffer.concat(head));
      head = undefined;
    }
    if (head !== undefined) scanner.write(Buffer.concat(head), true);
    return scanner.end();
  } catch (error) {
    throw toInvalidPlanError(error, context, scanner.bytes);
  }
}

function toBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (Buffer.isBuffer(chunk)) return chunk;
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

export function toInvalidPlanError(error: unknown, context: ScanContext, bytesRead: number): Error {
  if (error instanceof JsonScanError) {
    const where = error.path ? `, ${error.exact ? 'at' : 'inside'} ${error.path}` : '';
    return new InvalidPlanError(
      `${context.description} is not ${context.expected}: ${error.reason} (byte ${error.offset}${where})`,
      {
        hint: context.hint,
        cause: error,
        details: { source: context.description, offset: error.offset, path: error.path ?? null },
      },
    );
  }
  if (isTfgateError(error)) return error;
  const message = errorMessage(error);
  const after = bytesRead > 0 ? ` after ${bytesRead} bytes` : '';
  return new InvalidPlanError(`could not read ${context.description}${after}: ${message}`, {
    hint: context.hint,
    cause: error,
    details: { source: context.description, offset: bytesRead },
  });
}
