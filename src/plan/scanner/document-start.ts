// Friendlier messages for the usual wrong files, at the document's very first byte: a byte order mark, a
// binary plan file, text such as terraform's human-readable plan or a log.
import { LITERALS, startsValue } from './bytes.js';
import { describeByte } from './errors.js';

/**
 * What is wrong with a document starting with byte `c` at buf[i], or undefined. `last` says the chunk ends
 * the input (a word cut by its end is then text, not a literal still arriving).
 */
export function documentStartProblem(buf: Buffer, i: number, c: number, last: boolean): string | undefined {
  if (c === 0xef)
    return 'the input starts with a UTF-8 byte order mark, which tfgate does not accept: remove it';
  if (c === 0xff || c === 0xfe)
    return 'the input looks UTF-16 encoded (it starts with a byte order mark): write it as UTF-8';
  if (c === 0x50 && (i + 1 >= buf.length || buf[i + 1] === 0x4b))
    return "found 'P': this looks like a binary plan file (a zip archive), not its JSON rendering";
  if (c === 0x1f && (i + 1 >= buf.length || buf[i + 1] === 0x8b))
    return 'found byte 0x1f: this looks like gzip-compressed data (a bundle, or a compressed plan to decompress first), not JSON';
  // Text (a log, terraform's human-readable plan) is named as text: "this is…" is not "a boolean", and
  // "-----BEGIN PUBLIC KEY-----" (a key given in the plan's place) is not "a number".
  if (
    (isLetter(c) && !(c in LITERALS && literalStartsAt(buf, i, LITERALS[c]!.bytes, last))) ||
    (c === 0x2d && startsText(buf, i + 1, last))
  )
    return `not JSON: expected '{', found ${describeText(buf, i)}`;
  if (!startsValue(c)) return `not JSON: expected '{', found ${describeByte(c)}`;
  return undefined;
}

/** After a '-': anything but a digit (or the unseen rest of a chunk that is not the input's end) is text. */
function startsText(buf: Buffer, i: number, last: boolean): boolean {
  const next = buf[i];
  if (next === undefined) return last;
  return next < 0x30 || next > 0x39;
}

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/**
 * Whether buf holds `literal` at i, followed by a non-letter. The chunk's end counts as a match (the rest
 * is unseen) unless it is the input's end (`last`).
 */
function literalStartsAt(buf: Buffer, i: number, literal: Uint8Array, last: boolean): boolean {
  if (last && i + literal.length > buf.length) return false;
  for (let k = 0; k < literal.length && i + k < buf.length; k++) if (buf[i + k] !== literal[k]) return false;
  const after = buf[i + literal.length];
  return after === undefined || !isLetter(after);
}

const PEM_START = /^-----BEGIN ([A-Z0-9]+(?: [A-Z0-9]+)*)-----/;
const PRODUCT_WORD = /^(Terraform|OpenTofu) /;

/**
 * Text named by what it is, never quoted: a file given in the plan's place may be a `.env` or a tfvars file,
 * and the error lands in CI logs. Only a PEM block's label and terraform's own name are shown.
 */
function describeText(buf: Buffer, i: number): string {
  const start = buf.toString('latin1', i, Math.min(buf.length, i + 80));
  const pem = PEM_START.exec(start);
  if (pem) return `a PEM block ("-----BEGIN ${pem[1]}-----"): a key or certificate, not a plan`;
  const product = PRODUCT_WORD.exec(start);
  if (product) {
    const command = product[1] === 'OpenTofu' ? 'tofu' : 'terraform';
    return `text starting "${product[1]} …", ${command}'s human-readable output: give the output of \`${command} show -json\``;
  }
  return 'text (not shown: it may hold secrets)';
}
