import type {
  DetectedDrift,
  EvalFinding,
  EvaluationCounts,
  EvaluationResult,
  ObservedStateInput,
  PlanInput,
  Severity,
} from '../model/index.js';
import type { PolicyData } from './data.js';

/** What the plan entrypoint yields: findings and counts, before a threshold turns them into a decision. */
export interface PlanEvaluation {
  findings: EvalFinding[];
  counts: EvaluationCounts;
}

/** The compiled policy.wasm, loaded once per process; each evaluation gets memory sized to its input. */
export class PolicyEngine {
  /** Load the policy.wasm that ships with tfgate (or the given bytes, e.g. from a verified bundle). */
  static async load(_wasm?: Uint8Array): Promise<PolicyEngine> {
    throw new Error('PolicyEngine.load: not implemented yet');
  }
  /** Synchronous load, for CDKTF's synchronous visit/validate. */
  static loadSync(_wasm?: Uint8Array): PolicyEngine {
    throw new Error('PolicyEngine.loadSync: not implemented yet');
  }
  evaluatePlan(_data: PolicyData, _plan: PlanInput): PlanEvaluation {
    throw new Error('not implemented yet');
  }
  evaluateDrift(_data: PolicyData, _state: ObservedStateInput): DetectedDrift[] {
    throw new Error('not implemented yet');
  }
}

export function toEvaluationResult(
  _packageId: string,
  _minSeverity: Severity,
  _evaluation: PlanEvaluation,
): EvaluationResult {
  throw new Error('not implemented yet');
}
