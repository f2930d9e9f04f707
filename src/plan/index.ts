// Stage 1: read a plan (or observed state) as a stream, keeping only what the rules need.

export {
  ACTION_SHAPES,
  DEFAULT_BATCH_CHANGES,
  PLAN_HINT,
  type ReadPlanOptions,
  readPlan,
} from './read-plan.js';
export { readObservedState, STATE_HINT, STATE_MISSING_HINT, type StateIdentity } from './read-state.js';
export type { PlanSource } from './source.js';
export { bufferSource, fileSource, READ_CHUNK_BYTES, stdinSource } from './source.js';
