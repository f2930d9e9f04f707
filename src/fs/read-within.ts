// Read a file that may be hostile, still being written, a device (/dev/zero) or a pipe, never holding more
// than `maxBytes` (+1) of it. No stat first: it would prove nothing (pipes and procfs say 0 bytes, a file can
// grow after it), so the read itself is what is bounded. A pipe is read whole when it fits: the design and
// --approved-findings may come from /dev/stdin or a shell's <(...).
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

const CHUNK_BYTES = 1024 * 1024;

/** The file's bytes, or undefined when it holds more than `maxBytes`. Errors opening or reading it are thrown. */
export async function readFileWithin(file: string, maxBytes: number): Promise<Buffer | undefined> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return undefined;
    }
  } finally {
    await handle.close();
  }
}

/** readFileWithin for synchronous callers (the CDK aspect's visit): the same bound, the same answers. */
export function readFileWithinSync(file: string, maxBytes: number): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return undefined;
    }
  } finally {
    closeSync(fd);
  }
}
