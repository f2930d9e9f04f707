// No decision for one plan or one gate: the report files say so (as a root without a decision does among many
// plans), then advisory mode notes it and exits 0, or the error stands (exit 4). Shared by check, gate and the
// wrapper (plan, apply).
import {
  type AdvisoryConsequence,
  ExitCode,
  errorMessage,
  isTfgateError,
  type TfgateError,
} from '../errors/index.js';
import type { NoDecisionReport } from '../report/subject.js';
import { type ReportTarget, writeNoDecisionReports } from '../report/targets.js';
import { advisoryWithoutDecision } from './advisory.js';

/** What was to be decided, for the report: an evaluation or a gate, its package, the threshold. */
export type NoDecisionAbout = Pick<NoDecisionReport, 'of' | 'packageId' | 'minSeverity'>;

export function isNoDecision(error: unknown): error is TfgateError {
  return isTfgateError(error) && error.exitCode === ExitCode.noDecision;
}

/**
 * Write each report file as "no decision: <why>" (`advisory`: the run went on regardless). A file that cannot be written is said on stderr: it may
 * still hold an earlier run's result, and the run fails (or, advisory, says so loudly) anyway.
 */
export async function reportNoDecision(
  error: TfgateError,
  options: {
    reports: readonly ReportTarget[];
    about: NoDecisionAbout;
    advisory: boolean;
    advisoryGivenAs?: string | undefined;
    warn: (message: string) => void;
  },
): Promise<void> {
  const report: NoDecisionReport = {
    kind: 'no-decision',
    ...options.about,
    error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) },
    ...(options.advisory ? { advisory: true } : {}),
    ...(options.advisory && options.advisoryGivenAs ? { advisoryGivenAs: options.advisoryGivenAs } : {}),
  };
  for (const failure of await writeNoDecisionReports(report, options.reports)) {
    options.warn(`${errorMessage(failure)}; it may still hold an earlier run's result`);
  }
}

/** Where a run without a decision is reported: the report files, what was to be decided, stderr for warnings. */
export interface NoDecisionTarget {
  reports: readonly ReportTarget[];
  about: NoDecisionAbout;
  stderr: { write(chunk: string): unknown };
}

function warnOn(stderr: NoDecisionTarget['stderr']): (message: string) => void {
  return (message) => stderr.write(`warning: ${message}\n`);
}

/**
 * No decision was reached: the report files say why (a missing decision, exit 4, or a failure that ended the
 * run first: terraform's, a plan that cannot be read, exit 2), so none keeps an earlier run's result. Then, in
 * advisory mode, a missing decision is a loud notice and exit 0; anything else is thrown again. Only an error
 * that is not tfgate's (a defect) writes nothing.
 */
export async function withoutDecision(
  error: unknown,
  options: NoDecisionTarget & {
    advisory: boolean;
    advisoryGivenAs?: string | undefined;
    consequence?: AdvisoryConsequence;
  },
): Promise<typeof ExitCode.ok> {
  if (isTfgateError(error)) {
    await reportNoDecision(error, {
      ...options,
      advisory: options.advisory && isNoDecision(error),
      warn: warnOn(options.stderr),
    });
  }
  return advisoryWithoutDecision(error, options);
}

/**
 * The report files say why there is no decision, advisory or not, and the error stands: for what ends a run
 * whatever the mode (a setting found wrong, an interrupt).
 */
export async function reportAndThrow(error: unknown, target: NoDecisionTarget): Promise<never> {
  if (isTfgateError(error)) {
    await reportNoDecision(error, { ...target, advisory: false, warn: warnOn(target.stderr) });
  }
  throw error;
}

/**
 * Settings checked once the report files are known to be writable (a missing input, TFGATE_API_KEY unset, a
 * key file that does not exist): the error stands (exit 1), and each report file says why there is no
 * decision, so a step that publishes it always (`if: always()`) never shows an earlier run's pass.
 */
export function settingsOrNoDecision<T>(check: () => Promise<T>, target: NoDecisionTarget): Promise<T> {
  return check().catch((error: unknown) => reportAndThrow(error, target));
}
