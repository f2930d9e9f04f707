// Stage 1: read a plan (or observed state) as a stream, keeping only what the rules need.

export { readPlan } from './read-plan.js';
export { readObservedState } from './read-state.js';
export type { PlanSource } from './source.js';
export { bufferSource, fileSource, stdinSource } from './source.js';
