// The resource change lane: one item of $.resource_changes read in WebAssembly, and the part of it the policy
// reads (address, mode, type, deposed, change.actions, change.importing) appended to the output in the
// policy's input form, as src/policy/plan-session.ts's serializeChanges writes it. Only when the change is
// plainly valid: keys without escapes and none twice, kept strings without \u escapes, every kept value of the
// type src/plan/read-plan.ts's schema asks for, everything within the chunk. Anything else (an error to
// report, a duplicate key whose last value wins, an escaped key, a token cut by the chunk's end) and it returns
// BAIL, having written nothing: the JavaScript reads that change itself. So a change read here is one the
// JavaScript reads without error, to the same values.
import {
  ARR,
  isDigit,
  isSimpleEscape,
  isSpace,
  numberEnd,
  OBJ,
  OUT,
  OUT_BYTES,
  S_ARR_FIRST,
  S_OBJ_FIRST,
  STACK,
  STACK_BYTES,
  STATE,
  stringEnd,
} from './common';
import { skip } from './skip';

const BAIL: u32 = 0xffffffff;

// The fields of a resource change, and of its change, as bits (to see a field twice).
const F_ADDRESS: u32 = 1;
const F_MODULE_ADDRESS: u32 = 2;
const F_MODE: u32 = 4;
const F_TYPE: u32 = 8;
const F_NAME: u32 = 16;
const F_INDEX: u32 = 32;
const F_PROVIDER_NAME: u32 = 64;
const F_DEPOSED: u32 = 128;
const F_PREVIOUS_ADDRESS: u32 = 256;
const F_CHANGE: u32 = 512;
const REQUIRED: u32 = F_ADDRESS | F_MODE | F_TYPE | F_NAME | F_CHANGE;
const C_ACTIONS: u32 = 1;
const C_IMPORTING: u32 = 2;

// Where the kept values are: start and end (past the closing quote) of each string token.
let addressStart: u32 = 0;
let addressEnd: u32 = 0;
let modeStart: u32 = 0;
let modeEnd: u32 = 0;
let typeStart: u32 = 0;
let typeEnd: u32 = 0;
let deposedStart: u32 = 0;
let deposedEnd: u32 = 0;
let action1Start: u32 = 0;
let action1End: u32 = 0;
let action2Start: u32 = 0;
let action2End: u32 = 0;
let actionCount: u32 = 0;
let importing: bool = false;

function space(i: u32, n: u32): u32 {
  while (i < n && isSpace(<u32>load<u8>(i))) i++;
  return i;
}

/** Whether the bytes at `at` are `text` (ASCII). */
function bytesAre(at: u32, length: u32, text: string): bool {
  if (length !== <u32>text.length) return false;
  for (let k: u32 = 0; k < length; k++) if (<u32>load<u8>(at + k) !== <u32>text.charCodeAt(k)) return false;
  return true;
}

/**
 * The end (past the closing quote) of a kept string starting at `i`: one with no \u escape (JSON.parse and
 * OPA read a lone surrogate differently, and the reader refuses it), no raw control character, no invalid
 * escape, within the chunk; else BAIL.
 */
function keptString(i: u32, n: u32): u32 {
  if (i >= n || <u32>load<u8>(i) !== 0x22) return BAIL;
  for (let k = i + 1; k < n; k++) {
    const c = <u32>load<u8>(k);
    if (c === 0x22) return k + 1;
    if (c < 0x20) return BAIL;
    if (c === 0x5c) {
      if (k + 1 >= n) return BAIL;
      if (!isSimpleEscape(<u32>load<u8>(k + 1))) return BAIL;
      k++;
    }
  }
  return BAIL;
}

/** The end of a key starting at `i`, with no escape (the reader compares keys after unescaping); else BAIL. */
function plainKey(i: u32, n: u32): u32 {
  if (i >= n || <u32>load<u8>(i) !== 0x22) return BAIL;
  for (let k = i + 1; k < n; k++) {
    const c = <u32>load<u8>(k);
    if (c === 0x22) return k + 1;
    if (c === 0x5c || c < 0x20) return BAIL;
  }
  return BAIL;
}

/** The end of any valid value starting at `i`, at nesting `depth` (validated as the skip path does); or BAIL. */
function skipValue(i: u32, n: u32, depth: u32, maxDepth: u32): u32 {
  if (i >= n) return BAIL;
  const c = <u32>load<u8>(i);
  if (c === 0x22) {
    const q = stringEnd(i + 1, n);
    return q < 0 ? BAIL : <u32>q + 1;
  }
  if (c === 0x7b || c === 0x5b) {
    if (depth >= maxDepth || depth >= STACK_BYTES) return BAIL;
    store<u8>(STACK + depth, c === 0x7b ? OBJ : ARR);
    const at = skip(i + 1, n, depth + 1, depth, c === 0x7b ? S_OBJ_FIRST : S_ARR_FIRST, maxDepth);
    return <u32>load<i32>(STATE) === depth ? at : BAIL;
  }
  if (c === 0x2d || isDigit(c)) {
    const end = numberEnd(i, n);
    return end < 0 ? BAIL : <u32>end;
  }
  if (c === 0x74 || c === 0x6e) {
    if (i + 4 > n || load<u32>(i) !== (c === 0x74 ? 0x65757274 : 0x6c6c756e)) return BAIL;
    return i + 4;
  }
  if (c === 0x66) {
    if (i + 5 > n || load<u32>(i + 1) !== 0x65736c61) return BAIL;
    return i + 5;
  }
  return BAIL;
}

/** A known action, as the reader's checkAction accepts it. */
function isAction(start: u32, end: u32): bool {
  const at = start + 1;
  const length = end - start - 2;
  return (
    bytesAre(at, length, 'create') ||
    bytesAre(at, length, 'delete') ||
    bytesAre(at, length, 'update') ||
    bytesAre(at, length, 'no-op') ||
    bytesAre(at, length, 'read') ||
    bytesAre(at, length, 'forget')
  );
}

function actionIs(start: u32, end: u32, text: string): bool {
  return bytesAre(start + 1, end - start - 2, text);
}

/** change.actions: one known action, or two in one of the replace orders (read-plan.ts's ACTION_SHAPES). */
function actions(i: u32, n: u32): u32 {
  if (i >= n || <u32>load<u8>(i) !== 0x5b) return BAIL;
  i = space(i + 1, n);
  actionCount = 0;
  for (;;) {
    const end = keptString(i, n);
    if (end === BAIL || !isAction(i, end) || actionCount === 2) return BAIL;
    if (actionCount === 0) {
      action1Start = i;
      action1End = end;
    } else {
      action2Start = i;
      action2End = end;
    }
    actionCount++;
    i = space(end, n);
    if (i >= n) return BAIL;
    const c = <u32>load<u8>(i);
    if (c === 0x5d) break;
    if (c !== 0x2c) return BAIL;
    i = space(i + 1, n);
  }
  if (actionCount === 2) {
    const a = action1Start;
    const ae = action1End;
    const b = action2Start;
    const be = action2End;
    const replace =
      (actionIs(a, ae, 'delete') && actionIs(b, be, 'create')) ||
      (actionIs(a, ae, 'create') && (actionIs(b, be, 'delete') || actionIs(b, be, 'forget'))) ||
      (actionIs(a, ae, 'forget') && actionIs(b, be, 'create'));
    if (!replace) return BAIL;
  }
  return i + 1;
}

/** The change object: actions (required), importing (an object), every other field skipped. */
function changeObject(i: u32, n: u32, depth: u32, maxDepth: u32): u32 {
  if (i >= n || <u32>load<u8>(i) !== 0x7b || depth >= maxDepth) return BAIL;
  let seen: u32 = 0;
  importing = false;
  i = space(i + 1, n);
  if (i < n && <u32>load<u8>(i) === 0x7d) return BAIL; // no actions
  while (i < n) {
    const keyEnd = plainKey(i, n);
    if (keyEnd === BAIL) return BAIL;
    const at = i + 1;
    const length = keyEnd - i - 2;
    i = space(keyEnd, n);
    if (i >= n || <u32>load<u8>(i) !== 0x3a) return BAIL;
    i = space(i + 1, n);
    let field: u32 = 0;
    if (bytesAre(at, length, 'actions')) field = C_ACTIONS;
    else if (bytesAre(at, length, 'importing')) field = C_IMPORTING;
    if (field !== 0) {
      if ((seen & field) !== 0) return BAIL;
      seen |= field;
    }
    let end: u32;
    if (field === C_ACTIONS) {
      end = actions(i, n);
    } else if (field === C_IMPORTING) {
      // An object, as isObject asks (null, or anything else, is the reader's to refuse).
      end = i < n && <u32>load<u8>(i) === 0x7b ? skipValue(i, n, depth + 1, maxDepth) : BAIL;
      importing = true;
    } else {
      end = skipValue(i, n, depth + 1, maxDepth);
    }
    if (end === BAIL) return BAIL;
    i = space(end, n);
    if (i >= n) return BAIL;
    const c = <u32>load<u8>(i);
    if (c === 0x7d) return (seen & C_ACTIONS) !== 0 ? i + 1 : BAIL;
    if (c !== 0x2c) return BAIL;
    i = space(i + 1, n);
  }
  return BAIL;
}

/** A string, or a count index: digits alone (an integer, not negative), at most 15 of them. */
function instanceIndex(i: u32, n: u32): u32 {
  if (i >= n) return BAIL;
  const c = <u32>load<u8>(i);
  if (c === 0x22) return keptString(i, n);
  if (!isDigit(c)) return BAIL;
  let k = i + 1;
  if (c !== 0x30) while (k < n && isDigit(<u32>load<u8>(k))) k++;
  if (k >= n || k - i > 15) return BAIL;
  const after = <u32>load<u8>(k);
  // A fraction, an exponent or a digit after a leading zero: the reader's to judge.
  if (after === 0x2e || after === 0x65 || after === 0x45 || isDigit(after)) return BAIL;
  return k;
}

function put(at: u32, text: string): u32 {
  for (let k = 0; k < text.length; k++) store<u8>(at + k, <u8>text.charCodeAt(k));
  return at + text.length;
}

function copy(at: u32, start: u32, end: u32): u32 {
  memory.copy(at, start, end - start);
  return at + end - start;
}

/**
 * Read the resource change whose `{` is at `from`, at nesting `depth` inside it, in the chunk's first `n`
 * bytes. On success, appends `,{...}` (its policy input) to the output at the position STATE + 8 holds, moves
 * that position on, and returns the index after the change's `}`; else returns BAIL and writes nothing.
 */
export function change(from: u32, n: u32, depth: u32, maxDepth: u32): u32 {
  let seen: u32 = 0;
  let i = space(from + 1, n);
  if (i >= n || <u32>load<u8>(i) === 0x7d) return BAIL;
  for (;;) {
    const keyEnd = plainKey(i, n);
    if (keyEnd === BAIL) return BAIL;
    const at = i + 1;
    const length = keyEnd - i - 2;
    i = space(keyEnd, n);
    if (i >= n || <u32>load<u8>(i) !== 0x3a) return BAIL;
    i = space(i + 1, n);
    let field: u32 = 0;
    if (bytesAre(at, length, 'address')) field = F_ADDRESS;
    else if (bytesAre(at, length, 'mode')) field = F_MODE;
    else if (bytesAre(at, length, 'type')) field = F_TYPE;
    else if (bytesAre(at, length, 'name')) field = F_NAME;
    else if (bytesAre(at, length, 'change')) field = F_CHANGE;
    else if (bytesAre(at, length, 'index')) field = F_INDEX;
    else if (bytesAre(at, length, 'provider_name')) field = F_PROVIDER_NAME;
    else if (bytesAre(at, length, 'module_address')) field = F_MODULE_ADDRESS;
    else if (bytesAre(at, length, 'deposed')) field = F_DEPOSED;
    else if (bytesAre(at, length, 'previous_address')) field = F_PREVIOUS_ADDRESS;
    if (field !== 0) {
      if ((seen & field) !== 0) return BAIL;
      seen |= field;
    }
    let end: u32;
    if (field === F_ADDRESS || field === F_TYPE) {
      // A non-empty string.
      end = keptString(i, n);
      if (end !== BAIL && end - i < 3) end = BAIL;
      if (field === F_ADDRESS) {
        addressStart = i;
        addressEnd = end;
      } else {
        typeStart = i;
        typeEnd = end;
      }
    } else if (field === F_MODE) {
      end = keptString(i, n);
      if (end !== BAIL && !(bytesAre(i + 1, end - i - 2, 'managed') || bytesAre(i + 1, end - i - 2, 'data')))
        end = BAIL;
      modeStart = i;
      modeEnd = end;
    } else if (field === F_DEPOSED) {
      end = keptString(i, n);
      deposedStart = i;
      deposedEnd = end;
    } else if (
      field === F_NAME ||
      field === F_PROVIDER_NAME ||
      field === F_MODULE_ADDRESS ||
      field === F_PREVIOUS_ADDRESS
    ) {
      end = keptString(i, n);
    } else if (field === F_INDEX) {
      end = instanceIndex(i, n);
    } else if (field === F_CHANGE) {
      end = changeObject(i, n, depth, maxDepth);
    } else {
      end = skipValue(i, n, depth, maxDepth);
    }
    if (end === BAIL) return BAIL;
    i = space(end, n);
    if (i >= n) return BAIL;
    const c = <u32>load<u8>(i);
    if (c === 0x7d) break;
    if (c !== 0x2c) return BAIL;
    i = space(i + 1, n);
  }
  if ((seen & REQUIRED) !== REQUIRED) return BAIL;
  const hasDeposed = (seen & F_DEPOSED) !== 0;
  // The policy input: what serializeChanges writes for this change.
  const size =
    80 +
    (addressEnd - addressStart) +
    (modeEnd - modeStart) +
    (typeEnd - typeStart) +
    (hasDeposed ? deposedEnd - deposedStart + 12 : 0) +
    (action1End - action1Start) +
    (actionCount === 2 ? action2End - action2Start + 1 : 0) +
    (importing ? 15 : 0);
  const out = <u32>load<i32>(STATE + 8);
  if (out + size > OUT_BYTES) return BAIL;
  let p = OUT + out;
  p = put(p, ',{"address":');
  p = copy(p, addressStart, addressEnd);
  p = put(p, ',"mode":');
  p = copy(p, modeStart, modeEnd);
  p = put(p, ',"type":');
  p = copy(p, typeStart, typeEnd);
  if (hasDeposed) {
    p = put(p, ',"deposed":');
    p = copy(p, deposedStart, deposedEnd);
  }
  p = put(p, ',"change":{"actions":[');
  p = copy(p, action1Start, action1End);
  if (actionCount === 2) {
    p = put(p, ',');
    p = copy(p, action2Start, action2End);
  }
  p = put(p, importing ? '],"importing":{}}}' : ']}}');
  store<i32>(STATE + 8, p - OUT);
  return i + 1;
}
