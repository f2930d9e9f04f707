// fileSource: a small regular file is read in one call, anything else streams; both give the same bytes, and a
// FIFO (`--plan-json <(terraform show -json plan)`) is never opened on the main thread, where it would block.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, ReadStream, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileSource, WHOLE_READ_MAX_BYTES } from '../../src/plan/source.js';

const dir = mkdtempSync(join(tmpdir(), 'tfgate-file-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

describe('fileSource', () => {
  it('reads a small regular file whole, not through a file stream', async () => {
    const path = join(dir, 'small.json');
    writeFileSync(path, '{"format_version":"1.2","resource_changes":[]}');
    const stream = fileSource(path).open();
    expect(stream).not.toBeInstanceOf(ReadStream);
    expect((await bytesOf(stream)).toString()).toBe('{"format_version":"1.2","resource_changes":[]}');
  });

  it('streams a file over the whole-read limit, with the same bytes', async () => {
    const path = join(dir, 'large.json');
    const bytes = Buffer.alloc(WHOLE_READ_MAX_BYTES + 1, 0x20);
    writeFileSync(path, bytes);
    const stream = fileSource(path).open();
    expect(stream).toBeInstanceOf(ReadStream);
    expect((await bytesOf(stream)).equals(bytes)).toBe(true);
  });

  it('streams an empty file (size 0 may mean unknown, as in /proc) and a missing one fails from the stream', async () => {
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '');
    expect(fileSource(empty).open()).toBeInstanceOf(ReadStream);
    await expect(bytesOf(fileSource(join(dir, 'missing.json')).open())).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('streams a FIFO without blocking on its open', async () => {
    const fifo = join(dir, 'plan.fifo');
    execFileSync('mkfifo', [fifo]);
    // open() returns at once (a blocking open would hang here: no writer yet); the writer comes after.
    const stream = fileSource(fifo).open();
    expect(stream).toBeInstanceOf(ReadStream);
    const reading = bytesOf(stream);
    const writer = await open(fifo, 'w');
    await writer.write('{"resource_changes":[]}');
    await writer.close();
    expect((await reading).toString()).toBe('{"resource_changes":[]}');
  });
});
