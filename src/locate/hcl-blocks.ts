// The top-level blocks of a Terraform native-syntax (.tf) file and the line each starts on: `resource "t" "n" {`,
// `data "t" "n" {`, `module "n" {`. Hand-written rather than a package: the npm HCL parsers (@cdktf/hcl2json,
// hcl2-parser) convert HCL to JSON and drop source positions, which are all this needs. It lexes just enough
// HCL to know what is at the top level: comments (#, //, /* */), quoted templates with ${ } and %{ }
// sequences (which nest), and heredocs; everything inside a block body is skipped by brace depth.

export interface HclBlockStart {
  /** The block type: resource, data, module, ... */
  type: string;
  /** The labels, decoded (`resource "aws_s3_bucket" "logs"` -> ["aws_s3_bucket", "logs"]). */
  labels: string[];
  /** 1-based line of the block type keyword. */
  line: number;
}

/** Thrown when the text is not HCL this lexer can follow (unterminated string, unbalanced braces, too deep). */
export class HclLexError extends Error {}

/** Nested templates deeper than this are refused rather than followed (hostile input, not Terraform). */
const MAX_NESTING = 64;

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_-]/;

type Frame = { kind: 'code'; depth: number } | { kind: 'string'; raw: string[] | undefined };

/**
 * Every top-level block of `text` with its labels and starting line. Labels written as templates
 * (`"${x}"`) make the block unnamed (no labels). Throws HclLexError when the file cannot be followed.
 */
export function findHclBlocks(text: string): HclBlockStart[] {
  const blocks: HclBlockStart[] = [];
  // The top-level statement read so far on this line: its words and quoted labels, or undefined once it
  // cannot be a block header.
  let header: { words: Array<string | undefined>; line: number } | undefined;
  let line = 1;
  const stack: Frame[] = [{ kind: 'code', depth: 0 }];
  const top = () => stack[stack.length - 1] as Frame;
  const atTopLevel = () => stack.length === 1 && (stack[0] as { depth: number }).depth === 0;
  const push = (frame: Frame) => {
    if (stack.length > MAX_NESTING) throw new HclLexError(`templates nested deeper than ${MAX_NESTING}`);
    stack.push(frame);
  };

  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i] as string;
    const frame = top();
    if (frame.kind === 'string') {
      if (c === '\\') {
        frame.raw?.push(decodeEscape(text, i));
        i += escapeLength(text, i);
        continue;
      }
      if (c === '"') {
        stack.pop();
        if (frame.raw !== undefined && header && atTopLevel()) header.words.push(frame.raw.join(''));
        i++;
        continue;
      }
      // `$${` and `%%{` are a literal `${` and `%{`.
      if ((c === '$' || c === '%') && text[i + 1] === c && text[i + 2] === '{') {
        frame.raw?.push(`${c}{`);
        i += 3;
        continue;
      }
      // A template sequence: the string is no literal label any more.
      if ((c === '$' || c === '%') && text[i + 1] === '{') {
        if (frame.raw !== undefined && stack.length === 2 && header) header.words.push(undefined);
        frame.raw = undefined;
        push({ kind: 'code', depth: 0 });
        i += 2;
        continue;
      }
      if (c === '\n') throw new HclLexError(`line ${line}: a quoted string does not end on its line`);
      frame.raw?.push(c);
      i++;
      continue;
    }
    // Code.
    if (c === '\n') {
      line++;
      if (atTopLevel()) header = undefined;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new HclLexError(`line ${line}: a /* comment is not closed`);
      line += countNewlines(text, i, end);
      i = end + 2;
      continue;
    }
    if (c === '"') {
      const topLevel = atTopLevel();
      // A statement that starts with a string is no block header.
      if (topLevel && header === undefined) header = { words: [undefined], line };
      push({ kind: 'string', raw: topLevel ? [] : undefined });
      i++;
      continue;
    }
    if (c === '<' && text[i + 1] === '<') {
      const heredoc = /^<<(-?)([A-Za-z_][A-Za-z0-9_-]*)\r?\n/.exec(text.slice(i, i + 260));
      if (heredoc) {
        const marker = heredoc[2] as string;
        let at = i + heredoc[0].length;
        line++;
        // The body runs to a line holding only the marker (indentation allowed).
        for (;;) {
          const end = text.indexOf('\n', at);
          const bodyLine = text.slice(at, end < 0 ? n : end).trim();
          if (bodyLine === marker) {
            i = end < 0 ? n : end;
            break;
          }
          if (end < 0) throw new HclLexError(`line ${line}: the heredoc <<${marker} is not closed`);
          line++;
          at = end + 1;
        }
        if (atTopLevel()) header = undefined;
        continue;
      }
    }
    if (c === '{') {
      if (frame.depth === 0 && stack.length === 1 && header && header.words.length > 0) {
        const [type, ...labels] = header.words;
        if (type !== undefined && labels.every((l) => l !== undefined)) {
          blocks.push({ type, labels: labels as string[], line: header.line });
        }
      }
      header = undefined;
      frame.depth++;
      i++;
      continue;
    }
    if (c === '}') {
      if (frame.depth === 0) {
        if (stack.length === 1) throw new HclLexError(`line ${line}: a } closes nothing`);
        stack.pop();
      } else frame.depth--;
      i++;
      continue;
    }
    if (atTopLevel() && IDENT_START.test(c)) {
      let end = i + 1;
      while (end < n && IDENT_PART.test(text[end] as string)) end++;
      const word = text.slice(i, end);
      if (header === undefined) header = { words: [word], line };
      else header.words.push(word);
      i = end;
      continue;
    }
    // Anything else at the top level (`=`, an expression) means this statement is not a block header.
    if (atTopLevel()) header = { words: [undefined], line };
    i++;
  }
  if (stack.length !== 1 || (stack[0] as { depth: number }).depth !== 0) {
    throw new HclLexError('the file ends inside a block, a string or a template');
  }
  return blocks;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** Length of the escape sequence starting at `at` (a backslash). */
function escapeLength(text: string, at: number): number {
  const next = text[at + 1];
  if (next === 'u') return 6;
  if (next === 'U') return 10;
  return 2;
}

/** What an escape sequence in a quoted string stands for (HCL's escapes; unknown ones kept as written). */
function decodeEscape(text: string, at: number): string {
  const next = text[at + 1] ?? '';
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };
  if (next in simple) return simple[next] as string;
  if (next === 'u' || next === 'U') {
    const hex = text.slice(at + 2, at + escapeLength(text, at));
    const code = /^[0-9A-Fa-f]+$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN;
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : `\\${next}${hex}`;
  }
  return `\\${next}`;
}
