// A small ustar writer and a defensive reader for bundle tarballs. Bundles are read in memory and never
// extracted to disk, but every name is still checked: no traversal, no duplicates, regular files only.
import { gunzipSync, gzipSync } from 'node:zlib';
import { BundleVerificationError } from '../../errors/index.js';

export interface TarEntry {
  /** Bundle-root-relative path with '/' separators, no leading slash. */
  name: string;
  data: Buffer;
}

export interface TarLimits {
  /** Largest gzip-compressed bundle accepted. */
  maxCompressedBytes: number;
  /** Largest uncompressed tar stream accepted (guards against gzip bombs). */
  maxUncompressedBytes: number;
  /** Largest single file. */
  maxFileBytes: number;
  maxEntries: number;
}

export const DEFAULT_TAR_LIMITS: TarLimits = {
  maxCompressedBytes: 64 * 1024 * 1024,
  maxUncompressedBytes: 256 * 1024 * 1024,
  maxFileBytes: 128 * 1024 * 1024,
  maxEntries: 1000,
};

const BLOCK = 512;

/** Deterministic gzip'd ustar: entries in the given order, mtime 0, uid/gid 0, mode 0644. */
export function writeTarGz(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    blocks.push(ustarHeader(entry.name, entry.data.length));
    blocks.push(entry.data);
    const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (pad) blocks.push(Buffer.alloc(pad));
  }
  blocks.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}

function ustarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 100) {
    // Split into prefix/name at a slash, as ustar allows; bundle paths are short, so this is rare.
    const cut = name.lastIndexOf('/', 155);
    const prefix = Buffer.from(name.slice(0, cut), 'utf8');
    const rest = Buffer.from(name.slice(cut + 1), 'utf8');
    if (cut <= 0 || prefix.length > 155 || rest.length > 100) throw new Error(`tar: path too long: ${name}`);
    rest.copy(header, 0);
    prefix.copy(header, 345);
  } else {
    nameBytes.copy(header, 0);
  }
  writeOctal(header, 100, 8, 0o644);
  writeOctal(header, 108, 8, 0);
  writeOctal(header, 116, 8, 0);
  writeOctal(header, 124, 12, size);
  writeOctal(header, 136, 12, 0);
  header.write('        ', 148, 'ascii');
  header.write('0', 156, 'ascii');
  header.write('ustar\u000000', 257, 'binary');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'binary');
  return header;
}

function writeOctal(buf: Buffer, offset: number, length: number, value: number): void {
  buf.write(`${value.toString(8).padStart(length - 1, '0')}\u0000`, offset, 'ascii');
}

function refuse(code: string, message: string): never {
  throw new BundleVerificationError(code, message, {
    hint: 'use the bundle exactly as `tfgate bundle build` or the service produced it',
  });
}

/** Read a gzip'd tarball into memory, refusing anything that is not a plain, uniquely named file. */
export function readTarGz(bytes: Uint8Array, limits: TarLimits = DEFAULT_TAR_LIMITS): TarEntry[] {
  if (bytes.byteLength > limits.maxCompressedBytes) {
    refuse(
      'bundle_too_large',
      `bundle is ${bytes.byteLength} bytes; the limit is ${limits.maxCompressedBytes} bytes`,
    );
  }
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: limits.maxUncompressedBytes });
  } catch (error) {
    const tooBig = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    refuse(
      tooBig ? 'bundle_too_large' : 'bundle_not_gzip',
      tooBig
        ? `bundle expands past ${limits.maxUncompressedBytes} bytes`
        : `bundle is not a gzip tarball: ${(error as Error).message}`,
    );
  }
  const entries: TarEntry[] = [];
  const seen = new Set<string>();
  let offset = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  let paxSize: number | undefined;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    verifyChecksum(header, offset);
    const type = String.fromCharCode(header[156] ?? 0x30);
    const size = paxSize ?? readOctal(header, 124, 12, offset);
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) refuse('bundle_truncated', 'bundle tarball is truncated');
    const data = tar.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') {
      longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (type === 'x') {
      ({ path: paxPath, size: paxSize } = parsePax(data));
      continue;
    }
    if (type === 'g') continue;
    const rawName = longName ?? paxPath ?? headerName(header);
    longName = undefined;
    paxPath = undefined;
    paxSize = undefined;
    if (type === '5') continue;
    if (type !== '0' && type !== '\0' && type !== '7') {
      refuse(
        'bundle_unsafe_entry',
        `bundle entry ${JSON.stringify(rawName)} is not a regular file (type ${type})`,
      );
    }
    const name = normalizeEntryName(rawName);
    if (seen.has(name)) refuse('bundle_duplicate_entry', `bundle has more than one entry for ${name}`);
    seen.add(name);
    if (size > limits.maxFileBytes) {
      refuse('bundle_too_large', `bundle file ${name} is ${size} bytes; the limit is ${limits.maxFileBytes}`);
    }
    if (entries.length >= limits.maxEntries) {
      refuse('bundle_too_large', `bundle has more than ${limits.maxEntries} files`);
    }
    entries.push({ name, data: Buffer.from(data) });
  }
  return entries;
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

function headerName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const magic = header.subarray(257, 262).toString('binary');
  const prefix = magic === 'ustar' ? cString(header.subarray(345, 500)) : '';
  return prefix ? `${prefix}/${name}` : name;
}

function cString(buf: Buffer): string {
  const end = buf.indexOf(0);
  return buf.subarray(0, end === -1 ? buf.length : end).toString('utf8');
}

function readOctal(header: Buffer, offset: number, length: number, at: number): number {
  const text = cString(header.subarray(offset, offset + length)).trim();
  if (!/^[0-7]*$/.test(text)) refuse('bundle_corrupt', `bundle tarball header at byte ${at} is corrupt`);
  return text === '' ? 0 : Number.parseInt(text, 8);
}

function verifyChecksum(header: Buffer, at: number): void {
  const stored = readOctal(header, 148, 8, at);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  if (sum !== stored) refuse('bundle_corrupt', `bundle tarball header at byte ${at} has a bad checksum`);
}

function parsePax(data: Buffer): { path?: string; size?: number } {
  // Records are "<length> <key>=<value>\n", where length counts bytes, so walk the buffer, not a string.
  const result: { path?: string; size?: number } = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = Number.parseInt(data.subarray(at, space).toString('ascii'), 10);
    if (space === -1 || !(length > 0)) break;
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    at += length;
    const eq = record.indexOf('=');
    const key = record.slice(0, eq);
    const value = record.slice(eq + 1);
    if (key === 'path') result.path = value;
    if (key === 'size') result.size = Number.parseInt(value, 10);
  }
  return result;
}
