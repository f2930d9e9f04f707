import type { Readable } from 'node:stream';
import { InvalidPlanError, isTfgateError } from '../errors/index.js';
import { JsonScanError, type JsonScanner } from './scanner/index.js';

export type JsonInput = Readable | AsyncIterable<Uint8Array | string>;

export interface ScanContext {
  /** Names the input in messages: a path, "stdin", ... */
  description: string;
  /** What the input should be, for messages: "a Terraform plan". */
  expected: string;
  /** How to produce a valid input. */
  hint: string;
}

/** Feed a byte stream through the scanner; every failure becomes an InvalidPlanError naming the input. */
export async function scanStream(
  input: JsonInput,
  scanner: JsonScanner,
  context: ScanContext,
): Promise<unknown> {
  try {
    for await (const chunk of input as AsyncIterable<Uint8Array | string>) {
      scanner.write(toBuffer(chunk));
    }
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
  const message = error instanceof Error ? error.message : String(error);
  const after = bytesRead > 0 ? ` after ${bytesRead} bytes` : '';
  return new InvalidPlanError(`could not read ${context.description}${after}: ${message}`, {
    hint: context.hint,
    cause: error,
    details: { source: context.description, offset: bytesRead },
  });
}
