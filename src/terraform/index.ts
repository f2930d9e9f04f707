// Running terraform (or OpenTofu): plan, show -json as a stream, apply; failures explained; signals forwarded.
export { PASS_THROUGH_FLAGS, type PassThroughArgs, parsePassThrough } from './args.js';
export {
  describeBinary,
  detectTerraform,
  guessProduct,
  parseVersionOutput,
  resolveTerraformCommand,
  type TerraformBinary,
  type TerraformProduct,
} from './binary.js';
export { explainFailure, firstErrorSummary, stripAnsi, type TerraformStep } from './failures.js';
export { createPrivatePlanDir, type PrivatePlanDir } from './plan-dir.js';
export { type SavedPlanKind, savedPlanKind } from './saved-plan.js';
export { type ForwardedSignal, SignalGuard } from './signals.js';
export { type PlanOutcome, Terraform, type TerraformOptions } from './terraform.js';
