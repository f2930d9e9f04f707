// A bounded, forward-only reader for bundle tarballs, read in memory and never extracted to disk.
// Hand-written, not node-tar, for security: it reads exactly what Go's tar (so opa) reads and refuses the rest, where node-tar skips malformed headers and pax records with a warning.
import { gunzipSync } from 'node:zlib';
import {
  BLOCK,
  checkNumericFields,
  cStringBytes,
  decodeName,
  formatOf,
  globalPax,
  headerName,
  isZero,
  MAX_META_BYTES,
  type Pending,
  paxOverrides,
  readOctal,
  refuse,
  verifyChecksum,
} from './tar-header.js';

export interface TarEntry {
  /** Bundle-root-relative path with '/' separators, no leading slash. */
  name: string;
  data: Buffer;
}

export interface TarLimits {
  /** Largest gzip-compressed bundle accepted. */
  maxCompressedBytes: number;
  /** Largest uncompressed tar stream: decompression stops there (gzip bombs). */
  maxUncompressedBytes: number;
  /** Largest single file, checked from its header before any of its bytes is used. */
  maxFileBytes: number;
  /** Most tar headers: files, directories and pax or long-name headers together. */
  maxEntries: number;
  /** Longest entry name, in UTF-8 bytes. */
  maxNameBytes: number;
}

const MiB = 1024 * 1024;

/** A tfgate bundle is ~0.4 MB of policy.wasm plus the design's data (tens of KB): ample room, bounded work. */
export const DEFAULT_TAR_LIMITS: TarLimits = {
  maxCompressedBytes: 16 * MiB,
  maxUncompressedBytes: 32 * MiB,
  maxFileBytes: 16 * MiB,
  maxEntries: 1000,
  maxNameBytes: 256,
};

/** Read a gzip'd tarball into memory, refusing anything that is not a plain, uniquely named file. */
export function readTarGz(bytes: Uint8Array, limits: TarLimits = DEFAULT_TAR_LIMITS): TarEntry[] {
  return readTar(gunzip(bytes, limits), limits);
}

function gunzip(bytes: Uint8Array, limits: TarLimits): Buffer {
  if (bytes.byteLength > limits.maxCompressedBytes) {
    refuse(
      'bundle_too_large',
      `bundle is ${bytes.byteLength} bytes; the limit is ${limits.maxCompressedBytes} bytes`,
    );
  }
  if (bytes.byteLength < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    refuse('bundle_not_gzip', 'bundle is not a gzip tarball (it does not start with the gzip signature)');
  }
  try {
    return gunzipSync(bytes, {
      maxOutputLength: limits.maxUncompressedBytes,
      chunkSize: outputChunkSize(bytes, limits),
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      refuse(
        'bundle_too_large',
        `bundle expands past ${limits.maxUncompressedBytes} bytes when decompressed (a gzip bomb, or not a policy bundle)`,
      );
    }
    if (code === 'Z_BUF_ERROR') refuse('bundle_truncated', 'bundle is truncated: its gzip stream ends early');
    return refuse('bundle_not_gzip', `bundle is not a valid gzip stream: ${(error as Error).message}`);
  }
}

/**
 * Inflate in one chunk the size the gzip trailer states (ISIZE, the length mod 2^32), plus room to see the
 * end: 0.8 ms less than 16 KB chunks for a 0.4 MB bundle. The trailer is only a hint (the output limit
 * still holds), so a false one costs at most MAX_CHUNK_BYTES of memory.
 */
function outputChunkSize(bytes: Uint8Array, limits: TarLimits): number {
  const n = bytes.byteLength;
  const isize = (bytes[n - 4]! | (bytes[n - 3]! << 8) | (bytes[n - 2]! << 16) | (bytes[n - 1]! << 24)) >>> 0;
  return Math.max(MIN_CHUNK_BYTES, Math.min(isize + 64, MAX_CHUNK_BYTES, limits.maxUncompressedBytes));
}

const MIN_CHUNK_BYTES = 16 * 1024;
const MAX_CHUNK_BYTES = 4 * MiB;

/**
 * Walk the tar stream forward only: every header moves the offset on by one block plus its data, each size
 * checked (non-negative, within the limits, inside the stream) before the data is touched, so the walk ends
 * after at most maxEntries headers.
 */
export function readTar(tar: Buffer, limits: TarLimits = DEFAULT_TAR_LIMITS): TarEntry[] {
  const entries: TarEntry[] = [];
  const seen = new Set<string>();
  let pending: Pending | undefined;
  let headers = 0;
  let offset = 0;
  while (offset < tar.length) {
    if (offset + BLOCK > tar.length)
      refuse('bundle_truncated', `bundle tarball ends inside the header at byte ${offset}`);
    const header = tar.subarray(offset, offset + BLOCK);
    if (isZero(header)) {
      // The end, as Go reads it: a second zero block (or nothing) must follow; anything after is ignored.
      const next = tar.subarray(offset + BLOCK, offset + 2 * BLOCK);
      if (next.length > 0 && (next.length < BLOCK || !isZero(next))) {
        refuse('bundle_corrupt', `bundle tarball has data after its end-of-archive block at byte ${offset}`);
      }
      break;
    }
    if (++headers > limits.maxEntries) {
      refuse('bundle_too_large', `bundle has more than ${limits.maxEntries} tar entries`);
    }
    const at = offset;
    verifyChecksum(header, at);
    const format = formatOf(header);
    checkNumericFields(header, format, at);
    const type = String.fromCharCode(header[156]!);
    const headerSize = readOctal(header, 124, 12, at, 'size');
    const dataStart = offset + BLOCK;

    if (type === 'x' || type === 'g' || type === 'L') {
      const kind = type === 'L' ? 'long name' : 'pax';
      if (pending) {
        refuse('bundle_corrupt', `bundle tarball has two ${kind} headers for one entry at byte ${at}`);
      }
      if (headerSize > MAX_META_BYTES) {
        refuse(
          'bundle_corrupt',
          `bundle tarball has a ${headerSize}-byte ${kind} header at byte ${at}; the limit is ${MAX_META_BYTES}`,
        );
      }
      const body = dataAt(tar, dataStart, headerSize, at);
      offset = advance(offset, headerSize);
      if (type === 'L') pending = { kind, path: decodeName(cStringBytes(body), at, limits.maxNameBytes) };
      else if (type === 'x') pending = paxOverrides(body, at, limits.maxNameBytes);
      else globalPax(body, at);
      continue;
    }

    const size = pending?.size ?? headerSize;
    const nameBytes = pending?.path === undefined ? headerName(header, format, at) : undefined;
    const rawName = pending?.path ?? decodeName(nameBytes!, at, limits.maxNameBytes);
    pending = undefined;
    if (type === '5') {
      // Go reads no data after a directory header whatever its size says, so a size would hide entries.
      if (size !== 0) {
        refuse(
          'bundle_corrupt',
          `bundle directory entry ${JSON.stringify(rawName)} at byte ${at} claims ${size} bytes of data`,
        );
      }
      offset = advance(offset, 0);
      continue;
    }
    if (type !== '0' && type !== '\0') {
      refuse(
        'bundle_unsafe_entry',
        `bundle entry ${JSON.stringify(rawName)} is not a regular file (type ${JSON.stringify(type)})`,
      );
    }
    const name = normalizeEntryName(rawName);
    if (seen.has(name)) refuse('bundle_duplicate_entry', `bundle has more than one entry for ${name}`);
    seen.add(name);
    if (size > limits.maxFileBytes) {
      refuse('bundle_too_large', `bundle file ${name} is ${size} bytes; the limit is ${limits.maxFileBytes}`);
    }
    entries.push({ name, data: dataAt(tar, dataStart, size, at) });
    offset = advance(offset, size);
  }
  if (pending) refuse('bundle_corrupt', `bundle tarball ends after a ${pending.kind} header with no entry`);
  return entries;
}

/** The next header's offset: always forward, whatever the size said. */
function advance(offset: number, size: number): number {
  const next = offset + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  if (!(next > offset))
    refuse('bundle_corrupt', `bundle tarball entry at byte ${offset} does not move forward`);
  return next;
}

function dataAt(tar: Buffer, start: number, size: number, at: number): Buffer {
  if (start + size > tar.length) {
    refuse('bundle_truncated', `bundle tarball is truncated: the entry at byte ${at} needs ${size} bytes`);
  }
  return tar.subarray(start, start + size);
}

/**
 * OPA writes names with a leading '/' (opa build: "/data.json") and strips it when verifying, so one
 * leading slash means "bundle root". Anything else that could escape or alias a path is refused.
 */
export function normalizeEntryName(raw: string): string {
  const name = raw.startsWith('/') ? raw.slice(1) : raw;
  const segments = name.split('/');
  const unsafe =
    name === '' ||
    name.includes('\\') ||
    name.includes('\0') ||
    /^[A-Za-z]:/.test(name) ||
    segments.some((s) => s === '' || s === '.' || s === '..');
  if (unsafe) {
    refuse(
      'bundle_unsafe_path',
      `bundle entry ${JSON.stringify(raw)} has an unsafe path (absolute, traversal or empty segment)`,
    );
  }
  return name;
}
