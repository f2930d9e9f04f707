// A bounded, forward-only reader for bundle tarballs, read in memory and never extracted to disk.
// Hand-written on purpose (a security reason): it must read exactly the entries Go's archive/tar, and so opa,
// reads, and refuse every header the two could read differently; node-tar skips malformed headers and pax
// records with a warning and reads pax records line by line, so it could see other files than opa does.
import { isUtf8 } from 'node:buffer';
import { gunzipSync } from 'node:zlib';
import { BundleVerificationError } from '../../errors/index.js';

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

/** pax and GNU long-name headers hold a few names; Go allows 1 MiB, tfgate far less. */
const MAX_META_BYTES = 64 * 1024;
const BLOCK = 512;

type Format = 'v7' | 'ustar' | 'star' | 'gnu';

/** What a pax ('x') or GNU long-name ('L') header says about the entry that follows it. */
interface Pending {
  kind: 'pax' | 'long name';
  path?: string;
  size?: number;
}

function refuse(code: string, message: string): never {
  throw new BundleVerificationError(code, message, {
    hint: 'use the bundle exactly as `tfgate bundle build` or the service produced it',
  });
}

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
    return gunzipSync(bytes, { maxOutputLength: limits.maxUncompressedBytes });
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
      if (type === 'L') pending = { kind, path: decodeName(cStringBytes(body), at, limits) };
      else if (type === 'x') pending = paxOverrides(body, at, limits);
      else globalPax(body, at);
      continue;
    }

    const size = pending?.size ?? headerSize;
    const nameBytes = pending?.path === undefined ? headerName(header, format, at) : undefined;
    const rawName = pending?.path ?? decodeName(nameBytes!, at, limits);
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

/** Names are compared as strings: refuse bytes that would decode ambiguously or print misleadingly. */
function decodeName(bytes: Buffer, at: number, limits: TarLimits): string {
  if (bytes.length > limits.maxNameBytes) {
    refuse(
      'bundle_unsafe_path',
      `bundle entry name at byte ${at} is ${bytes.length} bytes long; the limit is ${limits.maxNameBytes}`,
    );
  }
  if (!isUtf8(bytes) || bytes.some((b) => b < 0x20 || b === 0x7f)) {
    refuse(
      'bundle_unsafe_path',
      `bundle entry name at byte ${at} is not printable UTF-8: ${JSON.stringify(bytes.toString('latin1'))}`,
    );
  }
  return bytes.toString('utf8');
}

/** Go's archive/tar: "ustar\0" is USTAR (STAR with the "tar\0" trailer), "ustar  \0" GNU, anything else V7. */
function formatOf(header: Buffer): Format {
  const magic = header.toString('latin1', 257, 263);
  if (magic === 'ustar\0') return header.toString('latin1', 508, 512) === 'tar\0' ? 'star' : 'ustar';
  if (magic === 'ustar ' && header.toString('latin1', 263, 265) === ' \0') return 'gnu';
  return 'v7';
}

function headerName(header: Buffer, format: Format, at: number): Buffer {
  const name = cStringBytes(header.subarray(0, 100));
  if (format === 'gnu' && !isZero(header.subarray(345, 500))) {
    // GNU keeps times there, but Go falls back to reading them as a name prefix when they do not parse.
    refuse(
      'bundle_corrupt',
      `bundle tarball GNU header at byte ${at} has extended fields tfgate does not read`,
    );
  }
  const prefixEnd = format === 'ustar' ? 500 : format === 'star' ? 476 : 345;
  const prefix = cStringBytes(header.subarray(345, prefixEnd));
  return prefix.length > 0 ? Buffer.concat([prefix, Buffer.from('/'), name]) : name;
}

function cStringBytes(buf: Buffer): Buffer {
  const end = buf.indexOf(0);
  return buf.subarray(0, end === -1 ? buf.length : end);
}

function isZero(buf: Buffer): boolean {
  for (const byte of buf) if (byte !== 0) return false;
  return true;
}

/**
 * A numeric header field as Go reads it (parseOctal: spaces and NULs trimmed at both ends, then up to the
 * first NUL). Base-256 fields (for values past 8 GiB) are refused rather than read.
 */
function readOctal(header: Buffer, offset: number, length: number, at: number, field: string): number {
  const raw = header.subarray(offset, offset + length);
  if ((raw[0]! & 0x80) !== 0) {
    refuse(
      'bundle_corrupt',
      `bundle tarball header at byte ${at}: its ${field} field is in base-256, which tfgate does not read`,
    );
  }
  let start = 0;
  let end = raw.length;
  while (start < end && (raw[start] === 0x20 || raw[start] === 0)) start++;
  while (end > start && (raw[end - 1] === 0x20 || raw[end - 1] === 0)) end--;
  const text = cStringBytes(raw.subarray(start, end)).toString('latin1');
  if (!/^[0-7]*$/.test(text)) {
    refuse(
      'bundle_corrupt',
      `bundle tarball header at byte ${at}: its ${field} field is not an octal number: ${JSON.stringify(text)}`,
    );
  }
  return text === '' ? 0 : Number.parseInt(text, 8);
}

/** Go refuses a header whose numeric fields do not parse; so does tfgate, so that both read the same entries. */
function checkNumericFields(header: Buffer, format: Format, at: number): void {
  readOctal(header, 100, 8, at, 'mode');
  readOctal(header, 108, 8, at, 'uid');
  readOctal(header, 116, 8, at, 'gid');
  readOctal(header, 136, 12, at, 'mtime');
  if (format !== 'v7') {
    readOctal(header, 329, 8, at, 'device major number');
    readOctal(header, 337, 8, at, 'device minor number');
  }
  if (format === 'star') {
    readOctal(header, 476, 12, at, 'atime');
    readOctal(header, 488, 12, at, 'ctime');
  }
}

/** Go accepts the unsigned or the signed sum of the header bytes, the checksum field counted as spaces. */
function verifyChecksum(header: Buffer, at: number): void {
  const stored = readOctal(header, 148, 8, at, 'checksum');
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : header[i]!;
    unsigned += byte;
    signed += byte < 0x80 ? byte : byte - 0x100;
  }
  if (stored !== unsigned && stored !== signed) {
    refuse('bundle_corrupt', `bundle tarball header at byte ${at} has a bad checksum`);
  }
}

/**
 * pax records, "<length> <key>=<value>\n" with length counting the whole record in bytes, parsed as Go's
 * parsePAXRecord does; anything it would refuse, and a key given twice, is refused.
 */
function paxRecords(body: Buffer, at: number): Map<string, Buffer> {
  const bad = (why: string): never =>
    refuse('bundle_corrupt', `bundle tarball pax header at byte ${at} is malformed: ${why}`);
  const records = new Map<string, Buffer>();
  let pos = 0;
  while (pos < body.length) {
    const space = body.indexOf(0x20, pos);
    const digits = space === -1 ? '' : body.toString('latin1', pos, space);
    if (!/^[0-9]{1,7}$/.test(digits))
      bad(`a record length ${JSON.stringify(digits.slice(0, 16))} is not a number`);
    const length = Number(digits);
    const end = pos + length;
    if (length < 5 || end > body.length || end - 1 <= space) {
      bad(`a record of ${length} bytes does not fit in the header`);
    }
    if (body[end - 1] !== 0x0a) bad('a record does not end with a newline where its length says');
    const record = body.subarray(space + 1, end - 1);
    const eq = record.indexOf(0x3d);
    if (eq <= 0) bad('a record is not "key=value"');
    const key = record.toString('latin1', 0, eq);
    const value = record.subarray(eq + 1);
    if (key.includes('\0') || (key === 'path' && value.includes(0)))
      bad(`the record ${key} holds a NUL byte`);
    if (records.has(key)) bad(`the record ${JSON.stringify(key)} is given twice`);
    records.set(key, value);
    pos = end;
  }
  return records;
}

/** Records Go parses as numbers (and refuses the archive when they do not parse). */
const PAX_NUMBERS: Record<string, RegExp> = {
  uid: /^[+-]?[0-9]{1,18}$/,
  gid: /^[+-]?[0-9]{1,18}$/,
  atime: /^[+-]?[0-9]{1,18}(\.[0-9]+)?$/,
  mtime: /^[+-]?[0-9]{1,18}(\.[0-9]+)?$/,
  ctime: /^[+-]?[0-9]{1,18}(\.[0-9]+)?$/,
};

function checkPaxRecords(records: Map<string, Buffer>, at: number): void {
  for (const [key, value] of records) {
    if (key.startsWith('GNU.sparse.')) {
      refuse(
        'bundle_unsafe_entry',
        `bundle tarball entry at byte ${at} is a sparse file, which tfgate does not read`,
      );
    }
    const pattern = PAX_NUMBERS[key];
    if (pattern && value.length > 0 && !pattern.test(value.toString('latin1'))) {
      refuse('bundle_corrupt', `bundle tarball pax header at byte ${at} has a malformed ${key}`);
    }
  }
}

/** A pax header for the next entry: its path and size override the header's. */
function paxOverrides(body: Buffer, at: number, limits: TarLimits): Pending {
  const records = paxRecords(body, at);
  checkPaxRecords(records, at);
  const pending: Pending = { kind: 'pax' };
  const path = records.get('path');
  if (path !== undefined) {
    if (path.length === 0)
      refuse('bundle_unsafe_path', `bundle tarball pax header at byte ${at} has an empty path`);
    pending.path = decodeName(path, at, limits);
  }
  const size = records.get('size')?.toString('latin1');
  if (size !== undefined) {
    if (!/^[0-9]{1,15}$/.test(size)) {
      refuse(
        'bundle_corrupt',
        `bundle tarball pax header at byte ${at} has size ${JSON.stringify(size.slice(0, 32))}, which is not a byte count`,
      );
    }
    pending.size = Number(size);
  }
  return pending;
}

/** A global pax header: Go ignores its path and size but other tar readers apply them, so refuse those. */
function globalPax(body: Buffer, at: number): void {
  const records = paxRecords(body, at);
  checkPaxRecords(records, at);
  for (const key of ['path', 'size', 'linkpath']) {
    if (records.has(key)) {
      refuse('bundle_corrupt', `bundle tarball global pax header at byte ${at} sets ${key} for every entry`);
    }
  }
}
