// A design is a few levels deep; yaml composes documents recursively, so thousands of levels (`[[[[…` or
// `- - - …`, two bytes a level) overflow the call stack. The depth is measured first on yaml's own lexer,
// which is iterative, and a document past the limit is refused in plain words.
import { Lexer } from 'yaml';

/** Far above any design (the deepest field is capabilities[].depends_on[], three levels) and far below the stack. */
export const MAX_DESIGN_NESTING = 64;

const BLOCK_INDICATORS = new Set(['-', '?', ':']);

/**
 * The 1-based line where `text` first nests deeper than `limit`, or undefined. Flow collections count each
 * open bracket; block collections count each one that starts to the right of the one enclosing it (a
 * sequence at its `-`, a mapping at its first key): as deep as the composer recurses, never less.
 */
export function lineNestedDeeperThan(text: string, limit = MAX_DESIGN_NESTING): number | undefined {
  let line = 1;
  let column = 0;
  let flow = 0;
  // Where the node being read on this line started: a mapping's column is its key's, not its colon's.
  let nodeStart: number | undefined;
  const blockColumns: number[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    if (lexeme === '[' || lexeme === '{') flow += 1;
    else if (lexeme === ']' || lexeme === '}') flow = Math.max(0, flow - 1);
    else if (flow === 0 && BLOCK_INDICATORS.has(lexeme)) {
      const at = lexeme === ':' ? (nodeStart ?? column) : column;
      while (blockColumns.length > 0 && blockColumns[blockColumns.length - 1]! >= at) blockColumns.pop();
      blockColumns.push(at);
      nodeStart = undefined;
    }
    if (flow + blockColumns.length > limit) return line;
    // yaml's control lexemes (document start, scalar start, …) are one character below U+0020 and take no room.
    if (lexeme.length === 1 && lexeme < ' ' && lexeme !== '\t' && lexeme !== '\n') continue;
    if (nodeStart === undefined && !BLOCK_INDICATORS.has(lexeme) && /[^ \t\r\n]/.test(lexeme)) {
      nodeStart = column;
    }
    const lastBreak = lexeme.lastIndexOf('\n');
    if (lastBreak < 0) {
      column += lexeme.length;
      continue;
    }
    for (let i = 0; i <= lastBreak; i++) if (lexeme.charCodeAt(i) === 10) line += 1;
    column = lexeme.length - lastBreak - 1;
    if (lexeme.trim() === '') nodeStart = undefined;
  }
  return undefined;
}
