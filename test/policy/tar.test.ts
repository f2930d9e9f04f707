// The bundle tar reader on hand-made hostile archives: sizes, pax records, names, header chains, gzip. Where
// tfgate accepts, it reads what Go's archive/tar (and so opa) reads; test/interop/tar-go.test.ts checks that
// against Go itself.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BundleVerificationError } from '../../src/errors/index.js';
import { DEFAULT_TAR_LIMITS, readTarGz, type TarLimits } from '../../src/policy/bundle/tar.js';
import { BLOCK, member, paxRecord, rawHeader, tarGzOf, tarOf } from './tar-craft.js';

function refusal(bundle: Buffer, limits?: Partial<TarLimits>): BundleVerificationError {
  try {
    readTarGz(bundle, { ...DEFAULT_TAR_LIMITS, ...limits });
  } catch (error) {
    expect(error).toBeInstanceOf(BundleVerificationError);
    expect((error as BundleVerificationError).exitCode).toBe(4);
    return error as BundleVerificationError;
  }
  throw new Error('expected a refusal');
}

const read = (bundle: Buffer) =>
  readTarGz(bundle).map((e) => ({ name: e.name, data: e.data.toString('utf8') }));
const pax = (...records: string[]) => member({ type: 'x', name: 'pax' }, records.join(''));
const file = (name: string, data: string) => member({ name }, data);

describe('sizes', () => {
  it.each([
    ['negative', '-1536'],
    ['not a number', '12a'],
    ['signed', '+12'],
    ['overflowing', '99999999999999999999'],
    ['empty', ''],
  ])('refuses a pax size that is %s', (_what, size) => {
    const error = refusal(tarGzOf(pax(paxRecord('size', size)), file('a.rego', 'x')));
    expect(error.code).toBe('bundle_corrupt');
    expect(error.message).toContain(`has size ${JSON.stringify(size)}, which is not a byte count`);
  });

  it('refuses a header size that is not octal, naming the field and the offset', () => {
    const error = refusal(tarGzOf(file('ok.rego', 'x'), member({ name: 'a.rego', size: '0000000009\0' })));
    expect(error.message).toBe(
      'bundle tarball header at byte 1024: its size field is not an octal number: "0000000009"',
    );
  });

  it('refuses a base-256 size rather than reading it', () => {
    const size = Buffer.alloc(12);
    size[0] = 0x80;
    size[11] = 3;
    expect(refusal(tarGzOf(member({ name: 'a.rego', size }, 'abc'))).message).toContain(
      'its size field is in base-256',
    );
  });

  it('reads a size with leading NULs or spaces as Go does (the old reader read 0 and lost the entry)', () => {
    const bundle = tarGzOf(member({ name: 'a.rego', size: '\0\x000000017\0' }, 'fifteen bytes!!'));
    expect(read(bundle)).toEqual([{ name: 'a.rego', data: 'fifteen bytes!!' }]);
    const spaced = tarGzOf(member({ name: 'b.rego', size: '     3 \0' }, 'abc'));
    expect(read(spaced)).toEqual([{ name: 'b.rego', data: 'abc' }]);
  });

  it('caps a file by its header size before reading it', () => {
    // The header claims 1 GiB and no data follows: refused for its size, not for being truncated.
    const error = refusal(gzipSync(rawHeader({ name: 'big.rego', size: 2 ** 30 })));
    expect(error.code).toBe('bundle_too_large');
    expect(error.message).toBe('bundle file big.rego is 1073741824 bytes; the limit is 16777216');
    expect(refusal(tarGzOf(file('a.rego', 'x'.repeat(100))), { maxFileBytes: 99 }).code).toBe(
      'bundle_too_large',
    );
  });

  it('refuses data that runs past the end of the archive', () => {
    const truncated = gzipSync(member({ name: 'a.rego' }, 'x'.repeat(600)).subarray(0, BLOCK + 100));
    expect(refusal(truncated).code).toBe('bundle_truncated');
  });

  it('applies a pax size and path to the next entry only', () => {
    const bundle = tarGzOf(
      pax(paxRecord('path', 'tfgate/long.rego'), paxRecord('size', '3')),
      member({ name: 'short', size: 0 }, 'abc'),
      file('b.rego', 'b'),
    );
    expect(read(bundle)).toEqual([
      { name: 'tfgate/long.rego', data: 'abc' },
      { name: 'b.rego', data: 'b' },
    ]);
  });
});

describe('pax records', () => {
  it.each([
    ['a length that is not a number', 'ab path=x\n', 'record length "ab" is not a number'],
    ['no length', 'path=x\n', 'is not a number'],
    ['a length past the header', '99 path=x\n', 'a record of 99 bytes does not fit in the header'],
    ['a length under 5', '3 a\n', 'a record of 3 bytes does not fit'],
    ['no newline where the length ends', '12 path=abcd', 'does not end with a newline'],
    ['no "="', '10 pathxx\n', 'is not "key=value"'],
    ['an empty key', '10 =value\n', 'is not "key=value"'],
    ['a key given twice', `${paxRecord('path', 'a.rego')}${paxRecord('path', 'b.rego')}`, 'given twice'],
    ['a NUL in the path', paxRecord('path', 'a\0b'), 'holds a NUL byte'],
    ['a malformed mtime', paxRecord('mtime', 'yesterday'), 'malformed mtime'],
    ['trailing padding', `${paxRecord('path', 'a.rego')}\0\0\0`, 'is not a number'],
  ])('refuses %s', (_what, body, message) => {
    const error = refusal(tarGzOf(member({ type: 'x', name: 'pax' }, body), file('a.rego', 'x')));
    expect(error.code).toBe('bundle_corrupt');
    expect(error.message).toContain('pax header at byte 0');
    expect(error.message).toContain(message);
  });

  it('refuses sparse files, whose data is not their content', () => {
    const error = refusal(tarGzOf(pax(paxRecord('GNU.sparse.major', '1')), file('a.rego', 'x')));
    expect(error.code).toBe('bundle_unsafe_entry');
    expect(error.message).toContain('sparse file');
  });

  it('refuses an empty pax path and a pax header past 64 KiB', () => {
    expect(refusal(tarGzOf(pax(paxRecord('path', '')), file('a.rego', 'x'))).code).toBe('bundle_unsafe_path');
    const huge = pax(paxRecord('comment', 'x'.repeat(70_000)));
    expect(refusal(tarGzOf(huge, file('a.rego', 'x'))).message).toContain('the limit is 65536');
  });

  it('ignores a global pax header with a comment, and refuses one that sets a path or size', () => {
    const global = (record: string) => member({ type: 'g', name: 'global' }, record);
    expect(read(tarGzOf(global(paxRecord('comment', 'git')), file('a.rego', 'x')))).toEqual([
      { name: 'a.rego', data: 'x' },
    ]);
    expect(refusal(tarGzOf(global(paxRecord('path', 'a.rego')), file('b.rego', 'x'))).message).toContain(
      'global pax header at byte 0 sets path for every entry',
    );
  });
});

describe('header chains and types', () => {
  it('refuses two meta headers for one entry, and one with no entry after it', () => {
    const p = pax(paxRecord('path', 'a.rego'));
    const long = member({ type: 'L', name: '././@LongLink' }, 'tfgate/b.rego\0');
    expect(refusal(tarGzOf(p, p, file('x', 'x'))).message).toContain('two pax headers for one entry');
    expect(refusal(tarGzOf(p, long, file('x', 'x'))).message).toContain('two long name headers');
    expect(refusal(tarGzOf(p)).message).toContain('ends after a pax header with no entry');
  });

  it('reads a GNU long name', () => {
    const long = member({ type: 'L', name: '././@LongLink', format: 'gnu' }, 'tfgate/b.rego\0');
    expect(read(tarGzOf(long, member({ name: 'tfgate/b.reg', format: 'gnu' }, 'b')))).toEqual([
      { name: 'tfgate/b.rego', data: 'b' },
    ]);
  });

  it('refuses a directory that claims data (Go reads none, so it would hide the entries after it)', () => {
    const hidden = member({ type: '5', name: 'tfgate/' }, rawHeader({ name: 'evil.rego' }));
    const error = refusal(tarGzOf(hidden, file('a.rego', 'x')));
    expect(error.message).toBe('bundle directory entry "tfgate/" at byte 0 claims 512 bytes of data');
    expect(refusal(tarGzOf(pax(paxRecord('size', '1')), member({ type: '5', name: 'd/' }))).code).toBe(
      'bundle_corrupt',
    );
    expect(read(tarGzOf(member({ type: '5', name: 'tfgate/' }), file('tfgate/a.rego', 'x')))).toEqual([
      { name: 'tfgate/a.rego', data: 'x' },
    ]);
  });

  it.each([
    ['1', 'hard link'],
    ['2', 'symlink'],
    ['7', 'contiguous file, which opa skips'],
    ['S', 'GNU sparse file'],
  ])('refuses type %s (%s)', (type) => {
    const error = refusal(tarGzOf(member({ name: 'a.rego', type })));
    expect(error.code).toBe('bundle_unsafe_entry');
    expect(error.message).toBe(`bundle entry "a.rego" is not a regular file (type "${type}")`);
  });

  it('refuses more headers than the limit, directories and meta headers included', () => {
    const dirs = Array.from({ length: 11 }, (_, i) => member({ type: '5', name: `d${i}/` }));
    expect(refusal(tarGzOf(...dirs), { maxEntries: 10 }).message).toBe('bundle has more than 10 tar entries');
  });
});

describe('names and formats', () => {
  it('refuses names that are too long, not UTF-8, or carry control characters', () => {
    const long = pax(paxRecord('path', `tfgate/${'a'.repeat(300)}.rego`));
    expect(refusal(tarGzOf(long, file('x', 'x'))).message).toContain('is 312 bytes long; the limit is 256');
    const latin1 = member({ name: Buffer.from([0x61, 0xff, 0x2e, 0x72]) });
    expect(refusal(tarGzOf(latin1)).message).toContain('is not printable UTF-8');
    expect(refusal(tarGzOf(file('a\nb.rego', 'x'))).code).toBe('bundle_unsafe_path');
  });

  it('joins a USTAR prefix, ignores the prefix bytes of a V7 header, and cuts a STAR prefix at 131 bytes', () => {
    expect(read(tarGzOf(member({ name: 'a.rego', prefix: 'tfgate' }, 'x')))[0]!.name).toBe('tfgate/a.rego');
    expect(read(tarGzOf(member({ name: 'a.rego', prefix: 'tfgate', format: 'v7' }, 'x')))[0]!.name).toBe(
      'a.rego',
    );
    // STAR keeps an atime after a 131-byte prefix; read as USTAR, the prefix would run on into it.
    const atime: [number, string] = [476, '00000000001\0'];
    const star = member({ name: 'a.rego', prefix: 'p'.repeat(131), patch: [atime, [508, 'tar\0']] }, 'x');
    expect(read(tarGzOf(star))[0]!.name).toBe(`${'p'.repeat(131)}/a.rego`);
  });

  it('refuses a GNU header whose time fields are set (Go may read them as a name prefix)', () => {
    const gnu = member({ name: 'a.rego', format: 'gnu', gnuExtra: Buffer.from('tfgate\0') }, 'x');
    expect(refusal(tarGzOf(gnu)).message).toContain('GNU header at byte 0 has extended fields');
    expect(read(tarGzOf(member({ name: 'a.rego', format: 'gnu' }, 'x')))[0]!.name).toBe('a.rego');
  });

  it('checks the checksum, accepting the signed sum as Go does', () => {
    expect(refusal(tarGzOf(member({ name: 'a.rego', checksum: 'bad' }, 'x'))).message).toBe(
      'bundle tarball header at byte 0 has a bad checksum',
    );
    const header = rawHeader({ name: 'é.rego', size: 1 });
    let signed = 0;
    for (let i = 0; i < BLOCK; i++) {
      const b = i >= 148 && i < 156 ? 0x20 : header[i]!;
      signed += b < 0x80 ? b : b - 0x100;
    }
    header.write(`${signed.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    const data = Buffer.alloc(BLOCK);
    data.write('x');
    expect(read(gzipSync(tarOf(header, data)))).toEqual([{ name: 'é.rego', data: 'x' }]);
  });
});

describe('the end of the archive and the gzip stream', () => {
  it('refuses data after a zero block, and accepts an archive without end blocks as Go does', () => {
    const afterEnd = Buffer.concat([Buffer.alloc(BLOCK), file('a.rego', 'x')]);
    expect(refusal(gzipSync(afterEnd)).message).toContain('data after its end-of-archive block at byte 0');
    expect(read(gzipSync(file('a.rego', 'x')))).toEqual([{ name: 'a.rego', data: 'x' }]);
    expect(refusal(gzipSync(file('a.rego', 'x').subarray(0, 300))).code).toBe('bundle_truncated');
  });

  it('stops decompressing at the limit (gzip bomb)', () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const error = refusal(bomb);
    expect(error.code).toBe('bundle_too_large');
    expect(error.message).toContain('expands past 33554432 bytes');
  });

  it('refuses what is not gzip, a truncated stream and trailing garbage', () => {
    expect(refusal(Buffer.from('not a bundle')).code).toBe('bundle_not_gzip');
    const gz = tarGzOf(file('a.rego', 'x'));
    expect(refusal(gz.subarray(0, gz.length - 10)).code).toBe('bundle_truncated');
    expect(refusal(Buffer.concat([gz, Buffer.from('garbage')])).code).toBe('bundle_not_gzip');
  });
});
