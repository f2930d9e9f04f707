import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';

import type { PlanSource } from '../model/evaluator.js';

// The interface lives in the model (the evaluator port); the sources are here.
export type { PlanSource };

/** Large reads: the scanner's per-chunk cost is fixed, and 1 MiB keeps syscalls and promise hops few. */
export const READ_CHUNK_BYTES = 1024 * 1024;

export function fileSource(path: string): PlanSource {
  return {
    description: path,
    reopenable: true,
    open: () => createReadStream(path, { highWaterMark: READ_CHUNK_BYTES }),
  };
}

export function stdinSource(): PlanSource {
  let opened = false;
  return {
    description: 'stdin',
    reopenable: false,
    open: () => {
      if (opened) throw new Error('stdin can only be read once');
      opened = true;
      return process.stdin;
    },
  };
}

export function bufferSource(bytes: Uint8Array | string, description = 'memory'): PlanSource {
  return { description, reopenable: true, open: () => Readable.from([Buffer.from(bytes)]) };
}
