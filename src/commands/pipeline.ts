// The decision pipeline, top to bottom: read and evaluate the plan → locate the findings → render the reports →
// decide → exit code.
import {
  ADVISORY_CONSEQUENCE,
  type AdvisoryConsequence,
  advisoryNotice,
  ExitCode,
  errorMessage,
  isTfgateError,
  NoDecisionError,
} from '../errors/index.js';
import type { ReportLocations } from '../locate/index.js';
import { detailsUnavailable, type PlanEvaluator } from '../model/evaluator.js';
import type { Acknowledgement, EvaluationResult, Severity } from '../model/index.js';
import type { PlanSource } from '../plan/index.js';
import { emitReports, type ReportTarget } from '../report/targets.js';

export interface PipelineOptions {
  source: PlanSource;
  evaluator: PlanEvaluator;
  minSeverity: Severity;
  /** Each report goes to stdout (no path) or to its file, written whole (temp + rename). */
  reports: readonly ReportTarget[];
  /**
   * A block is reported loudly on stderr and exits 0. A missing decision is thrown as for any run: the caller
   * writes the report files as "no decision" and, in advisory mode, notes it (src/commands/no-decision.ts).
   */
  advisory: boolean;
  /** How advisory mode was asked for, as its notices name it (absent: --advisory). */
  advisoryGivenAs?: string;
  /** What advisory mode's notice of a block says happens instead (default: "not enforced"). */
  advisoryConsequence?: AdvisoryConsequence;
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown };
  /** Where GitHub annotations go, if not stderr (the wrapper's stderr is its progress). */
  annotations?: { write(chunk: string): unknown };
  color: boolean;
  env?: NodeJS.ProcessEnv;
  /** Set once a signal interrupted the run: the reports are not written (the interrupt's stand). */
  interrupted?: () => Error | undefined;
  /** Plan address -> construct path (`--cdktf-stack`), shown beside the findings' addresses. */
  constructPaths?: (addresses: Iterable<string>) => ReadonlyMap<string, string>;
  /** Where the findings' addresses are declared (src/locate), when the configuration is known. */
  locate?: (addresses: string[]) => Promise<ReportLocations>;
  /** Finding id -> the approval that let it through (`check --approved-findings`), shown as acknowledged. */
  approvals?: ReadonlyMap<string, Acknowledgement>;
}

export interface PipelineOutcome {
  /** Undefined only in advisory mode when no decision could be reached (stderr says why). */
  result: EvaluationResult | undefined;
  /** 0 pass (or advisory), 3 blocked. No decision is a thrown TfgateError (exit 4), unless advisory. */
  exitCode: ExitCode;
}

/** Evaluate, report, decide. No decision is thrown (exit 4), in advisory mode too: the caller handles it. */
export async function evaluatePlan(options: PipelineOptions): Promise<PipelineOutcome> {
  const result = await options.evaluator.evaluate(options.source, options.minSeverity).catch(noDecision);
  const addresses = result.findings.map((f) => f.address);
  const constructPaths = options.constructPaths?.(addresses);
  // Locations and the fallback file only place findings: with none, the locator is not loaded or run.
  const located = addresses.length > 0 ? await options.locate?.(addresses) : undefined;
  const unavailable = detailsUnavailable(result);
  await emitReports(
    {
      kind: 'evaluation',
      result,
      advisory: options.advisory,
      advisoryGivenAs: options.advisoryGivenAs,
      ...(unavailable ? { detailsUnavailable: unavailable } : {}),
      ...(constructPaths && constructPaths.size > 0 ? { constructPaths } : {}),
      ...(located && located.locations.size > 0 ? { locations: located.locations } : {}),
      ...(located?.fallbackFile ? { fallbackFile: located.fallbackFile } : {}),
      ...(located?.fallbackDirectory ? { fallbackDirectory: located.fallbackDirectory } : {}),
      ...(options.approvals && options.approvals.size > 0 ? { approvals: options.approvals } : {}),
    },
    options.reports,
    { ...options, stderr: options.annotations ?? options.stderr },
  );
  if (result.decision === 'pass') return { result, exitCode: ExitCode.ok };
  if (options.advisory) {
    const notice = advisoryNotice(
      { kind: 'would-block', findings: result.findings.length, minSeverity: result.min_severity },
      options.advisoryConsequence ?? ADVISORY_CONSEQUENCE.notEnforced,
      options.advisoryGivenAs,
    );
    options.stderr.write(`${notice}\n`);
    return { result, exitCode: ExitCode.ok };
  }
  return { result, exitCode: ExitCode.blocked };
}

/** Fail closed: whatever stopped the evaluation, there is no decision (exit 4), never a pass. */
function noDecision(error: unknown): never {
  if (isTfgateError(error)) throw error;
  throw new NoDecisionError('evaluation_failed', `the plan could not be evaluated: ${errorMessage(error)}`, {
    hint: 'nothing was decided; fix the cause and run again',
    cause: error,
  });
}
