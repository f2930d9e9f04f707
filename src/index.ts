// The library API: the same stages the CLI uses.

export { type Design, designSchema, loadDesign, parseDesign } from './design/index.js';
export * from './errors/index.js';
export * from './model/index.js';
export * from './plan/index.js';
export * from './policy/index.js';
