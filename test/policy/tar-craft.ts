// Hand-made tar headers for hostile-input tests and the fuzzer: every field can be set to anything, including
// values no honest writer produces (negative or non-numeric sizes, bad checksums, malformed pax records).
import { createGzip, gzipSync } from 'node:zlib';

export const BLOCK = 512;

export interface RawHeader {
  name?: string | Buffer;
  /** Type flag character: '0' file, '5' directory, 'x' pax, 'g' global pax, 'L' GNU long name, ... */
  type?: string;
  /** A number is written as octal; a string or Buffer is written into the 12-byte field as given. */
  size?: number | string | Buffer;
  /** Magic: USTAR ("ustar\0" "00"), GNU ("ustar " " \0") or none (V7). */
  format?: 'ustar' | 'gnu' | 'v7';
  prefix?: string | Buffer;
  /** Written raw at offset 345 (GNU's atime and friends). */
  gnuExtra?: Buffer;
  /** 'good' (default), 'bad', or the raw 8-byte field. */
  checksum?: 'good' | 'bad' | Buffer;
  mode?: string | Buffer;
  /** Raw bytes written at these offsets before the checksum is computed. */
  patch?: Array<[offset: number, bytes: Buffer | string]>;
}

function field(buf: Buffer, offset: number, length: number, value: string | Buffer | number): void {
  const bytes =
    typeof value === 'number'
      ? Buffer.from(`${value.toString(8).padStart(length - 1, '0')}\0`, 'latin1')
      : Buffer.isBuffer(value)
        ? value
        : Buffer.from(value, 'latin1');
  bytes.copy(buf, offset, 0, Math.min(bytes.length, length));
}

/** One 512-byte header with a correct checksum unless asked otherwise. */
export function rawHeader(h: RawHeader): Buffer {
  const header = Buffer.alloc(BLOCK);
  field(header, 0, 100, typeof h.name === 'string' ? Buffer.from(h.name, 'utf8') : (h.name ?? 'file'));
  field(header, 100, 8, h.mode ?? 0o644);
  field(header, 108, 8, 0);
  field(header, 116, 8, 0);
  field(header, 124, 12, h.size ?? 0);
  field(header, 136, 12, 0);
  header.write(h.type ?? '0', 156, 'latin1');
  const format = h.format ?? 'ustar';
  if (format === 'ustar') header.write('ustar\u000000', 257, 'latin1');
  if (format === 'gnu') header.write('ustar  \u0000', 257, 'latin1');
  if (h.prefix !== undefined) field(header, 345, 155, h.prefix);
  if (h.gnuExtra !== undefined) field(header, 345, 155, h.gnuExtra);
  for (const [offset, bytes] of h.patch ?? []) field(header, offset, BLOCK - offset, bytes);
  if (Buffer.isBuffer(h.checksum)) {
    h.checksum.copy(header, 148, 0, 8);
    return header;
  }
  header.write('        ', 148, 'latin1');
  let sum = 0;
  for (const byte of header) sum += byte;
  if (h.checksum === 'bad') sum += 1;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return header;
}

/** A pax record with a correct length prefix: "<length> key=value\n". */
export function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length++;
  return `${length}${body}`;
}

/** A header and its data, padded to whole blocks; the size field is the data's length unless given. */
export function member(h: RawHeader, data: Buffer | string = Buffer.alloc(0)): Buffer {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8');
  const pad = (BLOCK - (bytes.length % BLOCK)) % BLOCK;
  return Buffer.concat([rawHeader({ size: bytes.length, ...h }), bytes, Buffer.alloc(pad)]);
}

/** Members followed by the two zero blocks that end an archive. */
export function tarOf(...members: Buffer[]): Buffer {
  return Buffer.concat([...members, Buffer.alloc(2 * BLOCK)]);
}

export function tarGzOf(...members: Buffer[]): Buffer {
  return gzipSync(tarOf(...members), { level: 9 });
}

/**
 * A bundle like the 107-byte one of issue 8: a pax header gives the directory after it a size of -1536, which
 * takes the old reader from that directory back to the pax header, forever, before any signature check.
 */
export function negativePaxSizeBundle(): Buffer {
  return tarGzOf(
    member({ type: 'x', name: 'x' }, paxRecord('size', '-1536')),
    member({ type: '5', name: 'd/' }),
  );
}

/** gzip of a tar holding these files, their data given in chunks, so that a huge file never sits in memory. */
export async function streamedTarGz(files: Array<{ name: string; size: number; chunks: Iterable<Buffer> }>) {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve, reject) => gzip.on('end', resolve).on('error', reject));
  const write = (chunk: Buffer) =>
    new Promise<void>((resolve) => (gzip.write(chunk) ? resolve() : gzip.once('drain', resolve)));
  for (const file of files) {
    await write(rawHeader({ name: file.name, size: file.size }));
    let written = 0;
    for (const chunk of file.chunks) {
      await write(chunk);
      written += chunk.length;
    }
    if (written !== file.size)
      throw new Error(`${file.name}: ${written} bytes written, ${file.size} declared`);
    await write(Buffer.alloc((BLOCK - (written % BLOCK)) % BLOCK));
  }
  gzip.end(Buffer.alloc(2 * BLOCK));
  await done;
  return Buffer.concat(out);
}

/** `{"tfgate":[0,0,…]}` of about `bytes` bytes, in 1 MiB chunks (issue 8, defect 3). */
export function zerosDataJson(bytes: number): { size: number; chunks: Buffer[] } {
  const open = Buffer.from('{"tfgate":[0');
  const close = Buffer.from(']}');
  const pairs = Math.max(0, Math.floor((bytes - open.length - close.length) / 2));
  const chunk = Buffer.from(',0'.repeat(512 * 1024));
  const chunks = [open];
  for (let left = pairs; left > 0; left -= 512 * 1024)
    chunks.push(left >= 512 * 1024 ? chunk : chunk.subarray(0, 2 * left));
  chunks.push(close);
  return { size: open.length + 2 * pairs + close.length, chunks };
}
