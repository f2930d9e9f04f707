// fileSource: a small regular file is read in one call, anything else streams; both give the same bytes, and a
// FIFO (`--plan-json <(terraform show -json plan)`) is never opened on the main thread, where it would block.
// consumedChunks: a large regular file is read into two buffers in turn, for a reader that takes each chunk in
// at once; the same bytes, the file closed however the reading ends.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, ReadStream, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consumedChunks, fileSource, READ_CHUNK_BYTES, WHOLE_READ_MAX_BYTES } from '../../src/plan/source.js';

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

/** Every chunk copied as it comes (the reader may reuse its memory), and the distinct buffers it used. */
async function consume(chunks: AsyncIterable<Uint8Array>) {
  const copies: Buffer[] = [];
  const buffers = new Set<ArrayBufferLike>();
  for await (const chunk of chunks) {
    copies.push(Buffer.from(chunk));
    buffers.add(chunk.buffer);
  }
  return { bytes: Buffer.concat(copies), chunks: copies.length, buffers: buffers.size };
}

const openDescriptors = () => readdirSync('/proc/self/fd').length;

describe('consumedChunks', () => {
  const large = join(dir, 'consumed-large.json');
  // Distinct bytes per position, so a chunk read into the wrong buffer or order shows.
  const bytes = Buffer.alloc(WHOLE_READ_MAX_BYTES + 3 * READ_CHUNK_BYTES + 17);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 20)) & 0xff;
  writeFileSync(large, bytes);

  it('reads a large regular file into two buffers in turn, with the same bytes', async () => {
    const result = await consume(consumedChunks(fileSource(large)));
    expect(result.bytes.equals(bytes)).toBe(true);
    expect(result.chunks).toBe(Math.ceil(bytes.length / READ_CHUNK_BYTES));
    expect(result.buffers).toBe(2);
  });

  it('closes the file when the reader stops early, or fails', async () => {
    const before = openDescriptors();
    for await (const _ of consumedChunks(fileSource(large))) break;
    expect(openDescriptors()).toBe(before);
    const failing = async () => {
      for await (const _ of consumedChunks(fileSource(large)))
        throw new Error('the scanner refused the plan');
    };
    await expect(failing()).rejects.toThrow('the scanner refused the plan');
    expect(openDescriptors()).toBe(before);
  });

  it('reads anything else as open() does: a small file whole, a missing one failing from the stream', async () => {
    const small = join(dir, 'consumed-small.json');
    writeFileSync(small, '{"resource_changes":[]}');
    expect((await consume(consumedChunks(fileSource(small)))).bytes.toString()).toBe(
      '{"resource_changes":[]}',
    );
    await expect(consume(consumedChunks(fileSource(join(dir, 'missing.json'))))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('reads a FIFO as a stream, opened only when read', async () => {
    const fifo = join(dir, 'consumed.fifo');
    execFileSync('mkfifo', [fifo]);
    const reading = consume(consumedChunks(fileSource(fifo)));
    const writer = await open(fifo, 'w');
    await writer.write('{"resource_changes":[]}');
    await writer.close();
    expect((await reading).bytes.toString()).toBe('{"resource_changes":[]}');
  });
});
