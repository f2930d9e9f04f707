// Read a file that may be hostile or still being written, never holding more than `maxBytes` (+1) of it.
import { open } from 'node:fs/promises';

/**
 * The bytes of `file`, or undefined when it holds more than `maxBytes` (also when it grew past them while
 * read: a stat-then-readFile would read all of it). Errors opening or reading it are thrown.
 */
export async function readFileWithin(file: string, maxBytes: number): Promise<Buffer | undefined> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    if (size > maxBytes) return undefined;
    // One byte more than the size tells whether the file grew while it was read.
    const bytes = Buffer.alloc(size + 1);
    let read = 0;
    for (let n = 1; n > 0 && read < bytes.length; read += n)
      n = (await handle.read(bytes, read, bytes.length - read, read)).bytesRead;
    if (read > size) return undefined;
    return bytes.subarray(0, read);
  } finally {
    await handle.close();
  }
}
