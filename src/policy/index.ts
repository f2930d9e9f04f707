// Stage 2: evaluate. The Rego policy compiled to wasm, evaluated in process; and signed OPA bundles.
export type { PolicyData, PolicyPlanAcknowledgement } from './data.js';
export {
  compileAddressPattern,
  compilePolicyData,
  POLICY_DATA_ROOT,
  withPlanAcknowledgements,
} from './data.js';
export type { PlanEvaluation } from './engine.js';
export {
  DRIFT_ENTRYPOINT,
  PLAN_ENTRYPOINT,
  PolicyEngine,
  SHIPPED_WASM_URL,
  toEvaluationResult,
} from './engine.js';
export type { ReadAndEvaluateOptions, ReadAndEvaluateResult } from './evaluate-stream.js';
export { readAndEvaluatePlan } from './evaluate-stream.js';
export { findingId } from './finding-id.js';
