// A small deterministic ustar writer for the bundles tfgate builds (the reader is tar.ts).
import { gzipSync } from 'node:zlib';
import type { TarEntry } from './tar.js';

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
