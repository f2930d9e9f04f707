// The skip path: validates skipped territory (deeper than every kept frame) with as little work per token
// as possible, its state in locals. It shares the tokenizer's states and, for whatever it does not finish
// itself (a token cut by the chunk's end, anything to report), hands over to the tokenizer's general code.
import * as alphabet from './bytes.js';
import { type SchemaNode, SKIP } from './schema.js';
import { Tokenizer } from './tokenizer.js';
import { LANE_OUT_BYTES, type SkipWasm, skipWasm, WASM_CHUNK_BYTES, WASM_STACK_LEVELS } from './wasm-skip.js';

// Module-local copies (see bytes.ts).
const { S_AFTER, S_ARR_FIRST, S_COLON, S_DONE, S_KEY, S_OBJ_FIRST, S_VALUE, STR_SKIP } = alphabet;
const { ARR, BACKSLASH, HEX_DIGIT, isDigit, LITERALS, OBJ, QUOTE, SIMPLE_ESCAPE, STRING_SPECIAL } = alphabet;

/** Numbers the chunks scanned on this thread, so the WebAssembly copy of one is made once. */
let chunksScanned = 0;

/** The lane's output is handed on before it has less room than this left (a change larger is read here). */
const LANE_ROOM = 16 * 1024;

/**
 * Items of a kept array read whole in WebAssembly when they plainly can be (ScanOptions.lane): the resource
 * changes of a plan, written in the policy's input form (scripts/json-skip/changes.ts).
 */
export interface ChangeLane {
  /** The schema node of the items (read-plan.ts's resource change). */
  item: SchemaNode;
  /** Items handed on at most this many at a time (the caller's batch). */
  batch: number;
  /** Items read there: `,{...}` each, `count` of them; the bytes are the receiver's. */
  take(json: Uint8Array, count: number): void;
}

export abstract class SkipPath extends Tokenizer {
  /** The number of the chunk being scanned (newChunk()). */
  private chunkNumber = 0;
  /** Whether skipped territory goes through the WebAssembly skip path first (ScanOptions.javascriptSkipOnly). */
  protected wasmSkip = true;
  protected lane: ChangeLane | undefined;
  /** Items in the lane's output not handed on yet. */
  private laneCount = 0;

  /** A new chunk is scanned: the WebAssembly skip path copies it on first use. */
  protected newChunk(): void {
    this.chunkNumber = ++chunksScanned;
  }

  /** This thread's WebAssembly instance, with the chunk being scanned in its memory. */
  private withChunk(buf: Buffer): SkipWasm {
    const wasm = skipWasm();
    if (wasm.loaded !== this.chunkNumber) {
      wasm.chunk.set(buf);
      wasm.loaded = this.chunkNumber;
    }
    return wasm;
  }

  /**
   * Read the lane's item whose `{` is at buf[i] in WebAssembly: the index after it, or -1 when it is for this
   * JavaScript to read (anything but a plainly valid change within the chunk).
   */
  protected laneRead(buf: Buffer, i: number): number {
    const maxDepth = this.limits.maxDepth;
    const depth = this.depth;
    if (
      !this.wasmSkip ||
      buf.length > WASM_CHUNK_BYTES ||
      depth >= maxDepth ||
      depth + 1 >= WASM_STACK_LEVELS
    )
      return -1;
    const wasm = this.withChunk(buf);
    // Output left by a scanner that stopped on an error is nobody's.
    if (wasm.outOwner !== this) {
      wasm.state[2] = 0;
      wasm.outOwner = this;
    }
    if (wasm.state[2]! > LANE_OUT_BYTES - LANE_ROOM) this.flushLane();
    const end = wasm.change(i, buf.length, depth + 1, maxDepth);
    if (end < 0) return -1;
    if (++this.laneCount >= this.lane!.batch) this.flushLane();
    return end;
  }

  /** Hand the lane's output on: at the chunk's end, and before control leaves the scan (another may use it). */
  protected flushLane(): void {
    if (this.laneCount === 0) return;
    const wasm = skipWasm();
    const json = wasm.out.slice(0, wasm.state[2]);
    const count = this.laneCount;
    this.laneCount = 0;
    wasm.state[2] = 0;
    this.lane!.take(json, count);
  }

  /**
   * Skip from buf[i]. Returns where it stopped: back at the kept level, at the chunk's end (n), or -1 when a
   * token continues into the next chunk (its state is saved for the resume path in write()). The WebAssembly
   * skip path (wasm-skip.ts) goes as far as it plainly can; this JavaScript takes up where it stops.
   */
  protected skipRun(buf: Buffer, i: number): number {
    const n = buf.length;
    const depth = this.depth;
    if (!this.wasmSkip || n > WASM_CHUNK_BYTES || depth >= WASM_STACK_LEVELS) return this.skipRunHere(buf, i);
    const wasm = this.withChunk(buf);
    // The types of the levels being skipped (usually one), there and back.
    const kept = this.frames.length;
    const stack = wasm.stack;
    for (let d = kept; d < depth; d++) stack[d] = this.types[d]!;
    const at = wasm.skip(i, n, depth, kept, this.st, this.limits.maxDepth);
    const reached = wasm.state[0]!;
    this.st = wasm.state[1]!;
    if (reached > this.types.length) {
      const grown = new Uint8Array(Math.max(reached, this.types.length * 2));
      grown.set(this.types);
      this.types = grown;
    }
    for (let d = kept; d < reached; d++) this.types[d] = stack[d]!;
    this.depth = reached;
    if (reached === kept || at === n) return at;
    return this.skipRunHere(buf, at);
  }

  /**
   * The hot loop in JavaScript, for what the WebAssembly leaves: the same returns as skipRun.
   */
  private skipRunHere(buf: Buffer, i: number): number {
    const n = buf.length;
    const kept = this.frames.length;
    let types = this.types;
    let depth = this.depth;
    let st = this.st;
    while (i < n) {
      const c = buf[i]!;
      if (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) {
        i++;
        continue;
      }
      if (st === S_AFTER) {
        if (c === 0x2c) {
          st = types[depth - 1] === OBJ ? S_KEY : S_VALUE;
          i++;
          continue;
        }
      } else if (st === S_KEY || st === S_OBJ_FIRST) {
        if (c === QUOTE) {
          const q = stringEnd(buf, i + 1);
          if (q < 0) return this.skipStringAcross(buf, i, depth, true);
          // Compact JSON: the colon usually follows the key at once.
          if (q + 1 < n && buf[q + 1] === 0x3a) {
            st = S_VALUE;
            i = q + 2;
          } else {
            st = S_COLON;
            i = q + 1;
          }
          continue;
        }
      } else if (st === S_COLON) {
        if (c === 0x3a) {
          st = S_VALUE;
          i++;
          continue;
        }
      } else {
        // S_VALUE or S_ARR_FIRST
        if (c === QUOTE) {
          const q = stringEnd(buf, i + 1);
          if (q < 0) return this.skipStringAcross(buf, i, depth, false);
          st = S_AFTER;
          i = q + 1;
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          if (depth === types.length || depth >= this.limits.maxDepth) {
            this.depth = depth;
            this.st = st;
            this.push(c === 0x7b ? OBJ : ARR, this.base + i);
            types = this.types;
            depth = this.depth;
          } else {
            types[depth++] = c === 0x7b ? OBJ : ARR;
          }
          st = c === 0x7b ? S_OBJ_FIRST : S_ARR_FIRST;
          i++;
          continue;
        }
        const isNumber = c === 0x2d || isDigit(c);
        if (isNumber) {
          const end = numberEnd(buf, i);
          if (end >= 0) {
            st = S_AFTER;
            i = end;
            continue;
          }
        } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
          const bytes = LITERALS[c]!.bytes;
          const len = bytes.length;
          if (i + len <= n && buf[i + 1] === bytes[1] && buf[i + 2] === bytes[2] && buf[i + 3] === bytes[3]) {
            if (len === 4 || buf[i + 4] === bytes[4]) {
              st = S_AFTER;
              i += len;
              continue;
            }
          }
        }
        // Numbers and literals split across chunks or invalid: the general token code says what is wrong.
        if (isNumber || c === 0x74 || c === 0x66 || c === 0x6e) {
          this.depth = depth;
          this.st = st;
          i = isNumber ? this.startNumber(buf, i, c, SKIP) : this.startLiteral(buf, i, c, SKIP);
          if (i < 0) return -1;
          st = this.st;
          continue;
        }
      }
      // A closing bracket where one may come: the container ends, and maybe the skipped territory with it.
      if (
        c === 0x7d
          ? st === S_OBJ_FIRST || (st === S_AFTER && types[depth - 1] === OBJ)
          : c === 0x5d && (st === S_ARR_FIRST || (st === S_AFTER && types[depth - 1] === ARR))
      ) {
        depth--;
        i++;
        if (depth === kept) {
          this.depth = depth;
          this.st = depth === 0 ? S_DONE : S_AFTER;
          return i;
        }
        st = S_AFTER;
        continue;
      }
      // Anything else is an error: let the tokenizer describe it.
      this.depth = depth;
      this.st = st;
      this.unexpected(c, this.base + i);
    }
    this.depth = depth;
    this.st = st;
    return n;
  }

  /** A skipped string stringEnd did not finish (it reaches the chunk's end, or has something to report). */
  private skipStringAcross(buf: Buffer, i: number, depth: number, isKey: boolean): number {
    this.depth = depth;
    this.beginString(STR_SKIP, this.base + i, SKIP, isKey);
    return this.skipString(buf, i + 1);
  }
}

/**
 * Index just past a valid number starting at buf[i], or -1 when it is invalid or reaches the chunk's end
 * (the general number code then reports the error or resumes across the chunk).
 */
function numberEnd(buf: Buffer, i: number): number {
  const n = buf.length;
  let c = buf[i]!;
  if (c === 0x2d) {
    if (++i >= n) return -1;
    c = buf[i]!;
  }
  if (c === 0x30) {
    i++;
  } else if (c >= 0x31 && c <= 0x39) {
    i++;
    while (i < n && isDigit(buf[i]!)) i++;
  } else {
    return -1;
  }
  if (i >= n) return -1;
  c = buf[i]!;
  if (c === 0x2e) {
    const digits = ++i;
    while (i < n && isDigit(buf[i]!)) i++;
    if (i === digits || i >= n) return -1;
    c = buf[i]!;
  }
  if (c === 0x65 || c === 0x45) {
    if (++i >= n) return -1;
    c = buf[i]!;
    if (c === 0x2b || c === 0x2d) i++;
    const digits = i;
    while (i < n && isDigit(buf[i]!)) i++;
    if (i === digits || i >= n) return -1;
    c = buf[i]!;
  }
  // A digit right after a leading zero is an error the general code reports.
  return isDigit(c) ? -1 : i;
}

/**
 * The skip path's string loop: the index of the quote that closes a string whose body starts at
 * buf[from], validated on the way (escapes; raw control characters), or -1 when the stateful loop must
 * take over: the chunk ends first, or there is something to report. A pure function, so the hot loop
 * keeps its state in registers. Four bytes a step while none is special: measured (Node 20, 22, 26) as
 * fast as finding the quote with indexOf and looking at the backslashes before it, which validated nothing.
 */
function stringEnd(buf: Buffer, from: number): number {
  const n = buf.length;
  const special = STRING_SPECIAL;
  let i = from;
  while (
    i + 3 < n &&
    (special[buf[i]!]! | special[buf[i + 1]!]! | special[buf[i + 2]!]! | special[buf[i + 3]!]!) === 0
  )
    i += 4;
  // A special byte among the next four, or the chunk's last few bytes.
  for (; i < n; i++) {
    const c = buf[i]!;
    if (special[c] !== 0) return c === QUOTE ? i : escapedStringEnd(buf, i);
  }
  return -1;
}

/** stringEnd for a body with escapes (or a control character): a byte loop that validates each escape. */
function escapedStringEnd(buf: Buffer, from: number): number {
  const n = buf.length;
  for (let i = from; i < n; i++) {
    const c = buf[i]!;
    if (STRING_SPECIAL[c] === 0) continue;
    if (c === QUOTE) return i;
    if (c !== BACKSLASH || i + 5 >= n) return -1;
    const e = buf[i + 1]!;
    if (SIMPLE_ESCAPE[e] === 1) {
      i++;
    } else if (
      e === 0x75 &&
      (HEX_DIGIT[buf[i + 2]!]! &
        HEX_DIGIT[buf[i + 3]!]! &
        HEX_DIGIT[buf[i + 4]!]! &
        HEX_DIGIT[buf[i + 5]!]!) ===
        1
    ) {
      i += 5;
    } else {
      return -1;
    }
  }
  return -1;
}
