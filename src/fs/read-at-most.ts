// A file read up to a limit, chunk by chunk: a huge file, a device (/dev/zero) or a pipe never fills memory,
// and a stat beforehand would prove nothing (pipes have no size; a file can grow after the stat).
// Unlike read-within.ts (which refuses a file holding more than its size said), a pipe is read whole here:
// the design and --approved-findings may come from /dev/stdin or a shell's <(...), as requireFiles allows.
import { open } from 'node:fs/promises';

/** The file's bytes, or undefined when it holds more than `maxBytes`. Open and read errors are thrown. */
export async function readAtMost(path: string, maxBytes: number): Promise<Buffer | undefined> {
  const file = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
      const { bytesRead } = await file.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return undefined;
    }
  } finally {
    await file.close();
  }
}
