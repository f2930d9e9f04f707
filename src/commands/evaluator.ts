import type { EvaluationResult, Severity } from '../model/index.js';
import type { PlanSource } from '../plan/index.js';

/**
 * The seam between "where the plan comes from" and "who decides": a verified local bundle
 * (src/policy/bundle) or the service (src/client). Both return the contract's evaluation response.
 * Implementations throw a TfgateError (exit 4) when they cannot reach a decision.
 */
export interface PlanEvaluator {
  /** Shown in progress and reports: "bundle <path>" or "service <base url>". */
  readonly description: string;
  evaluate(source: PlanSource, minSeverity: Severity): Promise<EvaluationResult>;
  /** Release what the evaluator holds (the service route's connections); optional. */
  close?(): Promise<void>;
}
