// Generators for the reader's differential property tests (reader-differential.test.ts).
//
// A document is generated as a model that can hold what JSON.parse's result cannot show: duplicate keys,
// member order, exact number texts. It is written to bytes with random valid escapes (`\u0061`, `\/`,
// surrogate pairs, upper- or lower-case hex) and whitespace, duplicate keys are injected at every level,
// and sometimes the bytes are mutated (control characters, bad escapes, invalid UTF-8, a BOM, truncation,
// a flipped byte). The tests never assume what the bytes mean: JSON.parse decides.
import fc from 'fast-check';
import { ACTION_SHAPES } from '../../src/plan/read-plan.js';
import { seededRandom } from './helpers.js';

export type Doc =
  | { kind: 'object'; members: Array<[string, Doc]> }
  | { kind: 'array'; items: Doc[] }
  | { kind: 'string'; value: string }
  | { kind: 'number'; text: string }
  | { kind: 'literal'; text: 'true' | 'false' | 'null' };

const object = (members: Array<[string, Doc]>): Doc => ({ kind: 'object', members });
const array = (items: Doc[]): Doc => ({ kind: 'array', items });
const string = (value: string): Doc => ({ kind: 'string', value });
const number = (text: string): Doc => ({ kind: 'number', text });

/** How the bytes are written and mutated; all choices come from `seed`. */
export interface Style {
  seed: number;
  /** Probability that a character that may be written raw is escaped instead. */
  escape: number;
  /** Probability of whitespace between two tokens. */
  whitespace: number;
  /** Probability that an object gets a duplicate key (before or after the original) or is shuffled. */
  duplicate: number;
  /** Number of byte mutations. */
  mutations: number;
}

// ---- values ---------------------------------------------------------------------------------------

const character = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'k', '_', '.', '-', '[', ']', '0', '7', ' ') },
  { weight: 2, arbitrary: fc.constantFrom('"', '\\', '/', '\n', '\t', '\u0000', '\u001f', '\u007f') },
  { weight: 2, arbitrary: fc.constantFrom('é', '日', '😀', '\u2028', '\ufeff', '\uffff') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
const loneSurrogate = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff');
/** Text anywhere the reader skips: lone surrogates often (JSON.parse accepts them, so must the reader). */
const anyCharacter = fc.oneof({ weight: 10, arbitrary: character }, { weight: 1, arbitrary: loneSurrogate });
/** Mostly short; now and then long enough for the reader's long-string path (over 16 bytes). */
const sized = (unit: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit, maxLength: 10 }) },
    { weight: 1, arbitrary: fc.string({ unit, minLength: 12, maxLength: 80 }) },
  );
export const text = sized(anyCharacter);
/** Text for values the reader keeps: a lone surrogate (refused there) now and then. */
const keptText = fc.oneof({ weight: 100, arbitrary: sized(character) }, { weight: 1, arbitrary: text });

const PLAN_FIELDS = ['format_version', 'terraform_version', 'resource_changes', 'errored', 'planned_values'];
const CHANGE_FIELDS = [
  'address',
  'mode',
  'type',
  'name',
  'index',
  'deposed',
  'change',
  'actions',
  'importing',
];
const STATE_FIELDS = ['values', 'root_module', 'resources', 'child_modules', 'outputs'];
/** Keys that collide with what the reader keeps or tracks, and with Object.prototype. */
const key = fc.oneof(
  { weight: 3, arbitrary: text },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...PLAN_FIELDS, ...CHANGE_FIELDS, ...STATE_FIELDS, '__proto__', 'constructor'),
  },
);

const numberText = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '7',
    '1e400',
    '-1e400',
    '1E+2',
    '0.5e-3',
    '4.9e-324',
    '1e-400',
    '12345678901234567890123',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
);

const scalar: fc.Arbitrary<Doc> = fc.oneof(
  text.map(string),
  numberText.map(number),
  fc.constantFrom('true', 'false', 'null').map((t) => ({ kind: 'literal', text: t }) as Doc),
);

/** Any JSON value, small: what Terraform writes in values the reader skips. */
export const anyDoc: fc.Arbitrary<Doc> = fc.letrec<{ value: Doc; array: Doc; object: Doc }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 4, withCrossShrink: true },
    scalar,
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }).map(array),
  object: fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map(object),
})).value;

/** Mostly a valid value for a field, sometimes anything (the schema must then refuse, as for JSON.parse). */
function mostly(valid: fc.Arbitrary<Doc>): fc.Arbitrary<Doc> {
  return fc.oneof({ weight: 60, arbitrary: valid }, { weight: 1, arbitrary: anyDoc });
}

type Shadow = [first: boolean, name: string, value: Doc] | undefined;

/**
 * An object of the given fields (undefined ones left out), then `extra` members. A shadow is a second,
 * valid value for one of the fields, written first (the field's value wins) or last (the shadow wins).
 */
function members(fields: Record<string, Doc | undefined>, extra: Array<[string, Doc]>, shadow?: Shadow): Doc {
  const list = Object.entries(fields).filter((entry): entry is [string, Doc] => entry[1] !== undefined);
  const all: Array<[string, Doc]> = [...list, ...extra];
  if (shadow) all.splice(shadow[0] ? 0 : all.length, 0, [shadow[1], shadow[2]]);
  return object(all);
}

/** A shadow for one of the fields, from the generators of their valid values. */
function shadow(valid: Record<string, fc.Arbitrary<Doc>>): fc.Arbitrary<Shadow> {
  const one = fc.oneof(
    ...Object.entries(valid).map(([name, arb]) =>
      fc.tuple(fc.boolean(), fc.constant(name), arb).map((t): Shadow => t),
    ),
  );
  return fc.option(one, { nil: undefined, freq: 4 });
}

const optional = (arb: fc.Arbitrary<Doc>, freq = 3) => fc.option(arb, { nil: undefined, freq });
const extras = fc.array(fc.tuple(key, anyDoc), { maxLength: 2 });
const nonEmpty = fc.oneof(
  { weight: 20, arbitrary: keptText.filter((t) => t !== '') },
  { weight: 1, arbitrary: keptText },
);
const address = fc
  .oneof(
    fc.constantFrom('aws_db_instance.ledger', 'module.m.aws_s3_bucket.b["k"]', 'aws_sqs_queue.q[0]'),
    nonEmpty,
  )
  .map(string);
const resourceType = fc
  .oneof(fc.constantFrom('aws_db_instance', 'aws_s3_bucket', 'aws_sqs_queue'), nonEmpty)
  .map(string);
const mode = fc.constantFrom('managed', 'managed', 'data').map(string);
const name = keptText.map(string);
const literal = (text: 'true' | 'false' | 'null'): Doc => ({ kind: 'literal', text });

const actions = fc.constantFrom(...ACTION_SHAPES).map((shape) => array(shape.map(string)));
const importing = fc.constantFrom(
  object([]),
  object([['id', string('i-1')]]),
  object([['__proto__', object([])]]),
);
const change = fc
  .record({
    actions: mostly(actions),
    before: optional(anyDoc),
    after: optional(anyDoc),
    importing: optional(mostly(importing)),
    extra: extras,
    shadow: shadow({ actions, importing }),
  })
  .map(({ extra, shadow, ...fields }) => members(fields, extra, shadow));

const index = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('0', '3', '-0', '4e0').map(number) },
  { weight: 1, arbitrary: fc.constantFrom('1e400', '1.5', '-1').map(number) },
  { weight: 4, arbitrary: keptText.map(string) },
);
const resourceChange = fc
  .record({
    address: mostly(address),
    module_address: optional(name),
    mode: mostly(mode),
    type: mostly(resourceType),
    name: mostly(name),
    index: optional(mostly(index)),
    provider_name: optional(name),
    deposed: optional(name),
    previous_address: optional(address),
    change: mostly(change),
    extra: extras,
    shadow: shadow({ address, mode, type: resourceType, change }),
  })
  .map(({ extra, shadow, ...fields }) => members(fields, extra, shadow));

const resourceChanges = fc.array(resourceChange, { maxLength: 4 }).map(array);
const formatVersion = fc.constantFrom('1.2', '1.0').map(string);
export const planDoc: fc.Arbitrary<Doc> = fc
  .record({
    format_version: mostly(formatVersion),
    terraform_version: optional(name),
    planned_values: optional(anyDoc),
    resource_changes: optional(mostly(resourceChanges), 12),
    errored: optional(fc.constantFrom('false', 'false', 'false', 'false', 'false', 'true').map(literal)),
    prior_state: optional(anyDoc),
    extra: extras,
    shadow: shadow({ resource_changes: resourceChanges, format_version: formatVersion }),
  })
  .map(({ extra, shadow, ...fields }) => members(fields, extra, shadow));

/** A plan with several resource changes, mostly valid (change-lane.test.ts). */
export const manyChangesPlanDoc: fc.Arbitrary<Doc> = fc
  .record({
    format_version: mostly(formatVersion),
    planned_values: optional(anyDoc),
    resource_changes: fc.array(resourceChange, { minLength: 2, maxLength: 10 }).map(array),
    prior_state: optional(anyDoc),
    errored: optional(fc.constantFrom('false', 'false', 'false', 'true').map(literal)),
    extra: extras,
  })
  .map(({ extra, ...fields }) => members(fields, extra));

const resource = fc
  .record({
    address: mostly(address),
    mode: mostly(mode),
    type: mostly(resourceType),
    name: mostly(name),
    values: optional(anyDoc),
    extra: extras,
    shadow: shadow({ address, mode, type: resourceType }),
  })
  .map(({ extra, shadow, ...fields }) => members(fields, extra, shadow));

const resources = fc.array(resource, { maxLength: 3 }).map(array);
const module: fc.Arbitrary<Doc> = fc.letrec<{ module: Doc }>((tie) => ({
  module: fc
    .record({
      address: optional(mostly(address)),
      resources: optional(mostly(resources)),
      child_modules: optional(
        fc.oneof(
          { depthSize: 'small', maxDepth: 3 },
          fc.constant(array([])),
          fc.array(tie('module'), { maxLength: 2 }).map(array),
        ),
      ),
      extra: extras,
      shadow: shadow({ resources }),
    })
    .map(({ extra, shadow, ...fields }) => members(fields, extra, shadow)),
})).module;

const stateValues = fc
  .record({
    outputs: optional(anyDoc),
    root_module: optional(mostly(module), 8),
    extra: extras,
    shadow: shadow({ root_module: module }),
  })
  .map(({ extra, shadow, ...fields }) => members(fields, extra, shadow));
export const stateDoc: fc.Arbitrary<Doc> = fc
  .record({
    format_version: mostly(fc.constantFrom('1.0').map(string)),
    terraform_version: optional(name),
    values: optional(mostly(stateValues), 8),
    extra: extras,
    shadow: shadow({ values: stateValues }),
  })
  .map(({ extra, shadow, ...fields }) => members(fields, extra, shadow));

export const style: fc.Arbitrary<Style> = fc.record({
  seed: fc.integer(),
  escape: fc.constantFrom(0, 0.1, 0.5, 1),
  whitespace: fc.constantFrom(0, 0.2),
  duplicate: fc.constantFrom(0, 0.3, 0.8),
  mutations: fc.constantFrom(0, 0, 0, 0, 0, 1, 1, 2),
});

// ---- writing --------------------------------------------------------------------------------------

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
const WHITESPACE = [' ', '\n', '\t', '\r\n  '];
/** Values of every kind a duplicate key may be given. */
const DUPLICATE_VALUES: Doc[] = [string('bogus'), number('7'), literal('null'), object([]), array([])];

function unicodeEscape(code: number, random: () => number): string {
  const hex = code.toString(16).padStart(4, '0');
  return `\\u${random() < 0.5 ? hex : hex.toUpperCase()}`;
}

function writeString(value: string, style: Style, random: () => number): string {
  let out = '"';
  for (let k = 0; k < value.length; k++) {
    const unit = value.charCodeAt(k);
    const next = value.charCodeAt(k + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      // A pair: written raw (4 bytes of UTF-8) or as two escapes.
      out +=
        random() < style.escape
          ? unicodeEscape(unit, random) + unicodeEscape(next, random)
          : value.slice(k, k + 2);
      k++;
      continue;
    }
    const c = value[k]!;
    const mustEscape = unit < 0x20 || c === '"' || c === '\\' || (unit >= 0xd800 && unit <= 0xdfff);
    if (!mustEscape && random() >= style.escape) out += c;
    else if (c === '/') out += random() < 0.5 ? '\\/' : unicodeEscape(unit, random);
    else if (SHORT_ESCAPES[c] && random() < 0.5) out += SHORT_ESCAPES[c];
    else out += unicodeEscape(unit, random);
  }
  return `${out}"`;
}

function withDuplicates(
  members: Array<[string, Doc]>,
  style: Style,
  random: () => number,
): Array<[string, Doc]> {
  if (members.length === 0 || random() >= style.duplicate) return members;
  const out = [...members];
  if (random() < 0.3) {
    for (let k = out.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [out[k], out[j]] = [out[j]!, out[k]!];
    }
  }
  const at = Math.floor(random() * out.length);
  const [name, value] = out[at]!;
  // A value of another kind (the schema refuses it if it wins), the same value, or another member's.
  const kind = random();
  const other =
    kind < 0.3
      ? DUPLICATE_VALUES[Math.floor(random() * DUPLICATE_VALUES.length)]!
      : kind < 0.7
        ? value
        : out[Math.floor(random() * out.length)]![1];
  // Before the original (the original wins) or after it (the duplicate wins).
  out.splice(random() < 0.5 ? at : at + 1, 0, [name, other]);
  return out;
}

function write(doc: Doc, style: Style, random: () => number): string {
  const ws = () => (random() < style.whitespace ? WHITESPACE[Math.floor(random() * WHITESPACE.length)]! : '');
  switch (doc.kind) {
    case 'string':
      return writeString(doc.value, style, random);
    case 'number':
    case 'literal':
      return doc.text;
    case 'array':
      return `[${ws()}${doc.items.map((item) => `${write(item, style, random)}${ws()}`).join(`,${ws()}`)}]`;
    case 'object': {
      const parts = withDuplicates(doc.members, style, random).map(
        ([name, value]) =>
          `${writeString(name, style, random)}${ws()}:${ws()}${write(value, style, random)}${ws()}`,
      );
      return `{${ws()}${parts.join(`,${ws()}`)}}`;
    }
  }
}

// ---- mutating ------------------------------------------------------------------------------------

const BAD_BYTES = [
  [0x0a],
  [0x00],
  [0x1f],
  [0x5c, 0x78], // \x
  [0x5c, 0x75, 0x31, 0x47], // \u1G
  [0x5c], // a lone backslash (escapes what follows)
  [0xc3, 0x28], // invalid continuation
  [0x80], // a lone continuation byte
  [0xc0, 0xaf], // overlong '/'
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0xe2, 0x82], // a cut sequence
  [0xef, 0xbb, 0xbf], // a BOM: valid UTF-8 inside a string, an error elsewhere
  [0x22], // a stray quote
  [0x2c], // a stray comma
];

function mutate(bytes: Buffer, random: () => number): Buffer {
  const at = Math.floor(random() * (bytes.length + 1));
  const choice = Math.floor(random() * 8);
  if (choice === 0) return bytes.subarray(0, at); // truncated
  if (choice === 1 && random() < 0.5) return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]); // a BOM
  if (choice === 2 && at < bytes.length) {
    const flipped = Buffer.from(bytes);
    flipped[at] = Math.floor(random() * 256);
    return flipped;
  }
  // Bad bytes inside a string (just after a quote) or anywhere.
  const quote = bytes.indexOf(0x22, at);
  const where = choice >= 4 && quote >= 0 ? quote + 1 : at;
  const bad = Buffer.from(BAD_BYTES[Math.floor(random() * BAD_BYTES.length)]!);
  return Buffer.concat([bytes.subarray(0, where), bad, bytes.subarray(where)]);
}

/** The document's bytes, written and mutated as `style` says. */
export function toBytes(doc: Doc, style: Style): Buffer {
  const random = seededRandom(style.seed);
  let bytes: Buffer = Buffer.from(write(doc, style, random), 'utf8');
  for (let m = 0; m < style.mutations; m++) bytes = mutate(bytes, random);
  return bytes;
}
