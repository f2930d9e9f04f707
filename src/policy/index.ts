// Stage 2: evaluate. The Rego policy compiled to wasm, evaluated in process; and signed OPA bundles.
export type { PolicyData } from './data.js';
export { compilePolicyData } from './data.js';
export type { PlanEvaluation } from './engine.js';
export { PolicyEngine, toEvaluationResult } from './engine.js';
