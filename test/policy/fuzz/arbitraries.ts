// fast-check generators of hostile bundle input: tar archives built header by header from hostile field
// values, mutations of a genuine bundle (tar bytes, gzip bytes, JSON files), and JSON text written every way
// JSON allows (escapes, whitespace, number forms, duplicate keys).
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { BLOCK, member, paxRecord, type RawHeader, rawHeader } from '../tar-craft.js';

const NAMES = [
  'data.json',
  '/data.json',
  '.manifest',
  '.signatures.json',
  'policy.wasm',
  'tfgate/a.rego',
  'tfgate/',
  'tfgate//a.rego',
  '../evil.rego',
  './data.json',
  'C:/x',
  'a\\b',
  'x'.repeat(99),
  'é/ü.rego',
];

const nameArb: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: 'grapheme-ascii' }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 30 }).map((b) => Buffer.from(b)) },
);

/** The 12-byte size field: honest, or anything a hostile writer could put there. */
const sizeFieldArb = (honest: number): fc.Arbitrary<number | string | Buffer> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(honest) },
    { weight: 2, arbitrary: fc.nat({ max: 4096 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('-1', '-1536', '77777777777\0', '99999999999', ' 17 \0', '\0\x017\0', 'zz'),
    },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 12, maxLength: 12 }).map((b) => Buffer.from(b)) },
  );

const PAX_KEYS = [
  'path',
  'size',
  'mtime',
  'uid',
  'linkpath',
  'comment',
  'GNU.sparse.major',
  'SCHILY.xattr.x',
];
const PAX_VALUES = [
  '-1536',
  '-1024',
  '-512',
  '-2048',
  '-1',
  '0',
  '3',
  '512',
  '99999999999999999999',
  '',
  'a.rego',
  'tfgate/b.rego',
  '1.5',
  'x\0y',
];

/** A pax body: well-formed records, or records with wrong lengths, no '=', no newline, junk. */
const paxBodyArb: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .tuple(fc.constantFrom(...PAX_KEYS), fc.constantFrom(...PAX_VALUES))
          .map(([k, v]) => paxRecord(k, v)),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            fc.integer({ min: -3, max: 200 }),
            fc.constantFrom(...PAX_KEYS),
            fc.constantFrom(...PAX_VALUES),
          )
          .map(([n, k, v]) => `${n} ${k}=${v}\n`),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    ),
    { maxLength: 4 },
  )
  .map((records) => records.join(''));

const headerArb: fc.Arbitrary<Buffer> = fc
  .record({
    type: fc.constantFrom('0', '0', '0', '\0', '5', 'x', 'x', 'g', 'L', '1', '2', '7', 'K', 'S'),
    name: nameArb,
    format: fc.constantFrom<RawHeader['format']>('ustar', 'ustar', 'gnu', 'v7'),
    checksum: fc.constantFrom<'good' | 'bad'>('good', 'good', 'good', 'good', 'bad'),
    prefix: fc.option(fc.constantFrom('tfgate', 'p'.repeat(140), '..'), { freq: 5 }),
    body: fc.string({ maxLength: 600 }),
    pax: paxBodyArb,
  })
  .chain((h) => {
    const data =
      h.type === 'L'
        ? `${typeof h.name === 'string' ? h.name : 'x'}\0`
        : h.type === 'x' || h.type === 'g'
          ? h.pax
          : h.body;
    const honest = Buffer.byteLength(data);
    return sizeFieldArb(honest).map((size) =>
      member(
        {
          type: h.type,
          name: h.name,
          format: h.format,
          checksum: h.checksum,
          size,
          ...(h.prefix === null ? {} : { prefix: h.prefix }),
        },
        data,
      ),
    );
  });

/** A pax header whose size or path record is hostile, then the entry it applies to: where tar readers break. */
const paxEntryArb: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.constantFrom('size', 'size', 'path'),
    fc.constantFrom(...PAX_VALUES),
    fc.constantFrom('0', '5', 'g', 'x', 'L'),
    fc.string({ maxLength: 40 }),
  )
  .map(([key, value, type, data]) =>
    Buffer.concat([
      member({ type: 'x', name: 'pax' }, paxRecord(key, value)),
      member({ type, name: 'd' }, data),
    ]),
  );

/** How an archive ends: properly, not at all, half a block, or with data after the end. */
const endArb = fc.constantFrom<Buffer[]>(
  [Buffer.alloc(2 * BLOCK)],
  [Buffer.alloc(2 * BLOCK)],
  [],
  [Buffer.alloc(BLOCK)],
  [Buffer.alloc(BLOCK), rawHeader({ name: 'after-end' })],
  [Buffer.alloc(300)],
);

/** A raw tar archive assembled from hostile headers. */
export const tarArb: fc.Arbitrary<Buffer> = fc
  .tuple(fc.array(fc.oneof(headerArb, paxEntryArb), { maxLength: 8 }), endArb)
  .map(([members, end]) => Buffer.concat([...members, ...end]));

/** Byte-level edits of a buffer: set, flip, cut, insert, repeat a block. */
export function mutationArb(length: number): fc.Arbitrary<(bytes: Buffer) => Buffer> {
  const at = fc.nat({ max: Math.max(0, length - 1) });
  const edit = fc.oneof(
    fc.tuple(at, fc.nat({ max: 255 })).map(([i, v]) => (b: Buffer) => {
      const c = Buffer.from(b);
      if (i < c.length) c[i] = v;
      return c;
    }),
    // A header's size, checksum or type field: where the interesting bytes are.
    fc
      .tuple(
        fc.nat({ max: 8 }),
        fc.constantFrom(124, 130, 135, 148, 156, 257),
        fc.uint8Array({ minLength: 1, maxLength: 6 }),
      )
      .map(([block, offset, bytes]) => (b: Buffer) => {
        const c = Buffer.from(b);
        c.set(
          bytes.subarray(0, Math.max(0, c.length - (block * BLOCK + offset))),
          Math.min(c.length, block * BLOCK + offset),
        );
        return c;
      }),
    at.map((i) => (b: Buffer) => b.subarray(0, i)),
    fc.tuple(at, fc.uint8Array({ maxLength: 64 })).map(
      ([i, bytes]) =>
        (b: Buffer) =>
          Buffer.concat([b.subarray(0, i), bytes, b.subarray(i)]),
    ),
    fc.tuple(fc.nat({ max: 8 }), fc.nat({ max: 8 })).map(([from, to]) => (b: Buffer) => {
      const block = b.subarray(from * BLOCK, from * BLOCK + BLOCK);
      return Buffer.concat([b.subarray(0, to * BLOCK), block, b.subarray(to * BLOCK)]);
    }),
  );
  return fc
    .array(edit, { minLength: 1, maxLength: 4 })
    .map((edits) => (bytes: Buffer) => edits.reduce((b, e) => e(b), bytes));
}

/** A gzip'd bundle: hostile archives, a genuine bundle's tar mutated, its gzip stream mutated, and (rarely: each costs ~0.1 s) gzip bombs. */
export function bundleBytesArb(genuine: Buffer): fc.Arbitrary<Buffer> {
  const tar = gunzipSync(genuine);
  const bombs = [1, 40].map((mib) => gzipSync(Buffer.alloc(mib * 1024 * 1024)));
  return fc.oneof(
    { weight: 16, arbitrary: tarArb.map((t) => gzipSync(t)) },
    { weight: 16, arbitrary: mutationArb(tar.length).map((m) => gzipSync(m(tar))) },
    { weight: 8, arbitrary: mutationArb(genuine.length).map((m) => m(genuine)) },
    { weight: 3, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constantFrom(...bombs) },
  );
}

const ws = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  ');

/** A character as it may be written inside a JSON string: raw or escaped, surrogates and separators included. */
const jsonCharArb: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'a',
      'b',
      'z',
      ' ',
      '<',
      '&',
      '/',
      '\u007f',
      'é',
      '\u2028',
      '\u2029',
      '\uffff',
      '😀',
      '\ue000',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '\\"',
      '\\\\',
      '\\/',
      '\\b',
      '\\f',
      '\\n',
      '\\r',
      '\\t',
      '\\u0000',
      '\\u001f',
      '\\u00e9',
      '\\u00E9',
      '\\u2028',
      '\\ud83d\\ude00',
      '\\ud800',
      '\\udc00',
      '\\uD83D',
      '\\ufffd',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.string({ maxLength: 2, unit: 'grapheme' }).map((s) => JSON.stringify(s).slice(1, -1)),
  },
);

const jsonStringArb = fc.array(jsonCharArb, { maxLength: 6 }).map((chars) => `"${chars.join('')}"`);
/** Keys from a small pool too, so that objects get duplicate keys, written the same or differently. */
const jsonKeyArb = fc.oneof(
  jsonStringArb,
  fc.constantFrom(
    '"a"',
    '"\\u0061"',
    '"b"',
    '"é"',
    '"\\u00e9"',
    '"😀"',
    '"\\uffff"',
    '"\\ud800"',
    '"\\udc00"',
  ),
);

const jsonNumberArb = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '1',
    '1.50',
    '1e3',
    '1E+3',
    '0.1e-7',
    '-12.0',
    '1e400',
    '123456789012345678901234567890',
  ),
  fc
    .tuple(fc.boolean(), fc.nat(), fc.option(fc.nat()), fc.option(fc.integer({ min: -400, max: 400 })))
    .map(
      ([neg, i, frac, exp]) =>
        `${neg ? '-' : ''}${i}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `e${exp}`}`,
    ),
);

/** JSON text, valid but written every way JSON allows. */
export const jsonTextArb: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    jsonNumberArb,
    jsonStringArb,
    fc.constantFrom('true', 'false', 'null'),
    fc
      .array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 })
      .map((items) => `[${items.map(([a, v, b]) => `${a}${v}${b}`).join(',')}]`),
    fc
      .array(fc.tuple(ws, jsonKeyArb, ws, tie('value')), { maxLength: 4 })
      .map((members) => `{${members.map(([a, k, b, v]) => `${a}${k}${b}:${a}${v}${b}`).join(',')}}`),
  ),
})).value;

/** JSON text, or nearly: a valid document with one byte changed, cut short, or with junk after it. */
export const jsonishTextArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: jsonTextArb },
  {
    weight: 2,
    arbitrary: fc
      .tuple(jsonTextArb, fc.nat(), fc.constantFrom('', ',', '}', ']', '"', '\\', 'x', '\u0001', '0'))
      .map(
        ([text, i, c]) => text.slice(0, i % (text.length + 1)) + c + text.slice((i % (text.length + 1)) + 1),
      ),
  },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('\ufeff', '  '), jsonTextArb).map(([a, b]) => a + b) },
);
