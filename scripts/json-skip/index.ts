// The module scripts/json-skip.mjs compiles: the scanner's skip path (skip.ts) and its resource change lane
// (changes.ts). Memory layout: common.ts.
export { change } from './changes';
// What the JavaScript side assumes of the module (src/plan/scanner/wasm-skip.ts checks them on instantiation).
export {
  ARR,
  CHUNK_BYTES,
  OBJ,
  OUT,
  OUT_BYTES,
  S_AFTER,
  S_ARR_FIRST,
  S_COLON,
  S_DONE,
  S_KEY,
  S_OBJ_FIRST,
  S_VALUE,
  STACK,
  STACK_BYTES,
  STATE,
} from './common';
export { skip } from './skip';
