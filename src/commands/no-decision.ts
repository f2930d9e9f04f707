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
    warn: (message: string) => void;
  },
): Promise<void> {
  const report: NoDecisionReport = {
    kind: 'no-decision',
    ...options.about,
    error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) },
    ...(options.advisory ? { advisory: true } : {}),
  };
  for (const failure of await writeNoDecisionReports(report, options.reports)) {
    options.warn(`${errorMessage(failure)}; it may still hold an earlier run's result`);
  }
}

/**
 * No decision was reached: the report files say why (a missing decision, exit 4, or a failure that ended the
 * run first: terraform's, a plan that cannot be read, exit 2), so none keeps an earlier run's result. Then, in
 * advisory mode, a missing decision is a loud notice and exit 0; anything else is thrown again. Only an error
 * that is not tfgate's (a defect) writes nothing.
 */
export async function withoutDecision(
  error: unknown,
  options: {
    advisory: boolean;
    stderr: { write(chunk: string): unknown };
    consequence?: AdvisoryConsequence;
    reports: readonly ReportTarget[];
    about: NoDecisionAbout;
  },
): Promise<typeof ExitCode.ok> {
  if (isTfgateError(error)) {
    await reportNoDecision(error, {
      ...options,
      advisory: options.advisory && isNoDecision(error),
      warn: (message) => options.stderr.write(`warning: ${message}\n`),
    });
  }
  return advisoryWithoutDecision(error, options);
}

/**
 * Settings checked once the report files are known to be writable (a missing input, TFGATE_API_KEY unset, a
 * key file that does not exist): the error stands (exit 1), and each report file says why there is no
 * decision, so a step that publishes it always (`if: always()`) never shows an earlier run's pass.
 */
export async function settingsOrNoDecision(
  check: () => Promise<void>,
  options: {
    reports: readonly ReportTarget[];
    about: NoDecisionAbout;
    stderr: { write(chunk: string): unknown };
  },
): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (isTfgateError(error)) {
      await reportNoDecision(error, {
        ...options,
        advisory: false,
        warn: (message) => options.stderr.write(`warning: ${message}\n`),
      });
    }
    throw error;
  }
}
