// The module scripts/json-skip.mjs compiles: the scanner's skip path (skip.ts) and its resource change lane
// (changes.ts). Memory layout: common.ts.
export { change } from './changes';
export { skip } from './skip';
