// The counts of an evaluation before anything is counted: the engine starts from them, and a result decided
// by status alone (the service blocked without a readable body) carries them.
import type { EvaluationCounts } from './index.js';

export function emptyEvaluationCounts(): EvaluationCounts {
  return {
    resource_changes: 0,
    creations: 0,
    destructions: 0,
    unrecognized: 0,
    findings: 0,
    updates: 0,
    reads: 0,
    imports: 0,
    forgets: 0,
    no_ops: 0,
  };
}
