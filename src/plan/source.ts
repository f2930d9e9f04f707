import {
  closeSync,
  createReadStream,
  fstatSync,
  openSync,
  readFileSync,
  type Stats,
  statSync,
} from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { Readable } from 'node:stream';

import { shownPath } from '../errors/shown.js';
import type { PlanSource } from '../model/evaluator.js';

// The interface lives in the model (the evaluator port); the sources are here.
export type { PlanSource };

/** Large reads: the scanner's per-chunk cost is fixed, and 1 MiB keeps syscalls and promise hops few. */
export const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * A regular file up to this size is read in one call: a stream's open, reads and close are each a round trip
 * through the thread pool, the most of a small plan's read (measured on 1k changes, 1.5 MB). Larger files,
 * pipes and devices stream, so memory stays bounded by the reader, not by the file.
 */
export const WHOLE_READ_MAX_BYTES = 8 * 1024 * 1024;

export function fileSource(path: string): PlanSource {
  return {
    // Messages name it: a newline in the path would start a line of its own (a forged "::error::" in CI).
    description: shownPath(path),
    reopenable: true,
    file: path,
    open: () => {
      const whole = readSmallRegularFile(path);
      return whole ? Readable.from([whole]) : createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
    },
  };
}

/**
 * The source's bytes for a reader that takes each chunk in before asking for the next, as the plan scanner does
 * (it copies what it keeps). A regular file larger than WHOLE_READ_MAX_BYTES is read into two buffers in turn,
 * the next chunk read while this one is scanned: a stream's fresh 1 MiB chunks outlive their use until a
 * garbage collection frees them, ~40 MB of a 147 MB plan's peak RSS. Anything else is read as open() reads it.
 */
export function consumedChunks(source: PlanSource): AsyncIterable<Uint8Array> {
  const path = source.file;
  return path === undefined ? source.open() : readLargeFileOr(path, source);
}

async function* readLargeFileOr(path: string, source: PlanSource): AsyncGenerator<Uint8Array> {
  const file = await openLargeRegularFile(path);
  if (file === undefined) {
    yield* source.open();
    return;
  }
  try {
    yield* readInTurns(file);
  } finally {
    await file.close();
  }
}

/**
 * The bytes of `file`, each chunk in one of two buffers used in turn: valid until the next one is asked for,
 * and the next read is under way while a chunk is scanned. Reads go through the thread pool and back through
 * the event loop, so other work (the policy's compile) goes on between chunks. The caller closes the file,
 * after this generator is done.
 */
async function* readInTurns(file: FileHandle): AsyncGenerator<Uint8Array> {
  const buffers = [Buffer.allocUnsafe(READ_CHUNK_BYTES), Buffer.allocUnsafe(READ_CHUNK_BYTES)];
  let turn = 0;
  let at = 0;
  const next = () => {
    const reading = file.read(buffers[turn]!, 0, READ_CHUNK_BYTES, at);
    turn ^= 1;
    return reading;
  };
  let reading = next();
  try {
    for (;;) {
      const read = await reading;
      if (read.bytesRead === 0) return;
      at += read.bytesRead;
      reading = next();
      yield read.buffer.subarray(0, read.bytesRead);
    }
  } finally {
    // A read under way is waited for: the file is never closed under it.
    await reading.catch(() => undefined);
  }
}

/** A handle on `path` when it is a regular file larger than WHOLE_READ_MAX_BYTES; else undefined. */
async function openLargeRegularFile(path: string): Promise<FileHandle | undefined> {
  try {
    // stat before open, as below: opening a FIFO would block until its writer.
    if (!isLargeRegularFile(statSync(path))) return undefined;
    const file = await open(path, 'r');
    if (isLargeRegularFile(await file.stat())) return file;
    await file.close();
  } catch {
    // Read as open() reads it: a missing or unreadable file fails as it always did.
  }
  return undefined;
}

function isLargeRegularFile(stat: Stats): boolean {
  return stat.isFile() && stat.size > WHOLE_READ_MAX_BYTES;
}

/**
 * The bytes of `path` when it is a regular file of at most WHOLE_READ_MAX_BYTES; else undefined (stream it).
 * Any error also says "stream it", so a missing or unreadable file fails as it always did, from the stream.
 */
function readSmallRegularFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    // stat before open: opening a FIFO (`--plan-json <(terraform show -json ...)`) would block until its writer.
    if (!isSmallRegularFile(statSync(path))) return undefined;
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    // fstat on the open descriptor: what is read is what was checked. readFileSync reads at most the size fstat
    // reported for a regular file, so the bound holds even if the file grows meanwhile.
    return isSmallRegularFile(fstatSync(fd)) ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
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

/** Size 0 streams too: files such as /proc's report 0 and readFileSync would then read them to the end. */
function isSmallRegularFile(stat: Stats): boolean {
  return stat.isFile() && stat.size > 0 && stat.size <= WHOLE_READ_MAX_BYTES;
}
