// How Go's archive/tar (and so opa) reads one tar header's fields and a pax header's records, for tar.ts:
// where Go would read a field one way, so does tfgate; where tar readers disagree, tfgate refuses.
import { isUtf8 } from 'node:buffer';
import { BundleVerificationError } from '../../errors/index.js';

export const BLOCK = 512;
/** pax and GNU long-name headers hold a few names; Go allows 1 MiB, tfgate far less. */
export const MAX_META_BYTES = 64 * 1024;
export type Format = 'v7' | 'ustar' | 'star' | 'gnu';

/** What a pax ('x') or GNU long-name ('L') header says about the entry that follows it. */
export interface Pending {
  kind: 'pax' | 'long name';
  path?: string;
  size?: number;
}

export function refuse(code: string, message: string): never {
  throw new BundleVerificationError(code, message, {
    hint: 'use the bundle exactly as `tfgate bundle build` or the service produced it',
  });
}

/** Names are compared as strings: refuse bytes that would decode ambiguously or print misleadingly. */
export function decodeName(bytes: Buffer, at: number, maxNameBytes: number): string {
  if (bytes.length > maxNameBytes) {
    refuse(
      'bundle_unsafe_path',
      `bundle entry name at byte ${at} is ${bytes.length} bytes long; the limit is ${maxNameBytes}`,
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
export function formatOf(header: Buffer): Format {
  const magic = header.toString('latin1', 257, 263);
  if (magic === 'ustar\0') return header.toString('latin1', 508, 512) === 'tar\0' ? 'star' : 'ustar';
  if (magic === 'ustar ' && header.toString('latin1', 263, 265) === ' \0') return 'gnu';
  return 'v7';
}

export function headerName(header: Buffer, format: Format, at: number): Buffer {
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

export function cStringBytes(buf: Buffer): Buffer {
  const end = buf.indexOf(0);
  return buf.subarray(0, end === -1 ? buf.length : end);
}

export function isZero(buf: Buffer): boolean {
  for (const byte of buf) if (byte !== 0) return false;
  return true;
}

/**
 * A numeric header field as Go reads it (parseOctal: spaces and NULs trimmed at both ends, then up to the
 * first NUL). Base-256 fields (for values past 8 GiB) are refused rather than read.
 */
export function readOctal(header: Buffer, offset: number, length: number, at: number, field: string): number {
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
export function checkNumericFields(header: Buffer, format: Format, at: number): void {
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
export function verifyChecksum(header: Buffer, at: number): void {
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
export function paxOverrides(body: Buffer, at: number, maxNameBytes: number): Pending {
  const records = paxRecords(body, at);
  checkPaxRecords(records, at);
  const pending: Pending = { kind: 'pax' };
  const path = records.get('path');
  if (path !== undefined) {
    if (path.length === 0)
      refuse('bundle_unsafe_path', `bundle tarball pax header at byte ${at} has an empty path`);
    pending.path = decodeName(path, at, maxNameBytes);
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
export function globalPax(body: Buffer, at: number): void {
  const records = paxRecords(body, at);
  checkPaxRecords(records, at);
  for (const key of ['path', 'size', 'linkpath']) {
    if (records.has(key)) {
      refuse('bundle_corrupt', `bundle tarball global pax header at byte ${at} sets ${key} for every entry`);
    }
  }
}
