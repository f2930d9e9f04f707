// The wrapper behind `tfgate plan` and `tfgate apply`: options, the session, the steps, progress.
export {
  type WrapperContext,
  type WrapperOptions,
  type WrapperResult,
  type WrapperStatus,
  wrapperOptionsSchema,
} from './options.js';
export { type ProgressReporter, type StepOptions, silentProgress } from './progress.js';
export { type SessionSetup, type WrapperSession, withSession } from './session.js';
export {
  applyStep,
  type Evaluated,
  evaluateStep,
  type InterruptedDuring,
  planWhileLoading,
  throwIfInterrupted,
} from './steps.js';
