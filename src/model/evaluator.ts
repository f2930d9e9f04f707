// The evaluator port: the seam between "where the plan comes from" and "who decides". It lives in the model
// so that the layers that implement it (src/policy/bundle, src/client) and the commands that use it all
// point down to it. Like the rest of the model it imports nothing but Node's types.
import type { Readable } from 'node:stream';
import type { EvaluationResult, Severity } from './index.js';

/**
 * Where plan JSON comes from. `open()` may be called more than once (a retried upload re-streams
 * from the start), so a source is a factory, not a stream.
 */
export interface PlanSource {
  /** Shown in messages: a path, "stdin", or "terraform show -json". */
  readonly description: string;
  /** True when open() can be called again to re-read from the start. */
  readonly reopenable: boolean;
  open(): Readable;
  /**
   * The plan's path when it is a file: a reader that takes each chunk in before asking for the next (the plan
   * scanner) may read it itself, into one reused buffer (src/plan/source.ts, consumedChunks).
   */
  readonly file?: string;
}

/**
 * Who decides: a verified local bundle (src/policy/bundle) or the service (src/client). Both return the
 * contract's evaluation response. Implementations throw a TfgateError (exit 4) when they cannot decide.
 */
export interface PlanEvaluator {
  /** Shown in progress and reports: "bundle <path>" or "service <base url>". */
  readonly description: string;
  evaluate(source: PlanSource, minSeverity: Severity): Promise<EvaluationResult>;
  /** Release what the evaluator holds (the service route's connections); optional. */
  close?(): Promise<void>;
}

/** Results decided by a status alone (the service blocked without a body tfgate could read): why, by result. */
const statusOnly = new WeakMap<EvaluationResult, string>();

/** Mark a result as decided by status alone; the reports then say why no findings are shown. */
export function markDetailsUnavailable(result: EvaluationResult, why: string): EvaluationResult {
  statusOnly.set(result, why);
  return result;
}

/** Why a result carries no details, when it was decided by status alone; else undefined. */
export function detailsUnavailable(result: EvaluationResult): string | undefined {
  return statusOnly.get(result);
}
