// Advisory mode for the commands: a missing decision becomes a loud notice and exit 0. The wording is
// src/errors/advisory.ts's, shared with the CDKTF aspect. Usage errors (1) and terraform failures (2) still fail.
import {
  ADVISORY_CONSEQUENCE,
  type AdvisoryConsequence,
  advisoryNotice,
  ExitCode,
  isTfgateError,
} from '../errors/index.js';

/**
 * In advisory mode, turn a missing decision (a TfgateError with exit 4) into a loud notice and exit 0.
 * Anything else, or any error without advisory mode, is thrown again unchanged.
 */
export function advisoryWithoutDecision(
  error: unknown,
  options: {
    advisory: boolean;
    /** How advisory mode was asked for, as the notice names it (absent: --advisory). */
    advisoryGivenAs?: string | undefined;
    stderr: { write(chunk: string): unknown };
    consequence?: AdvisoryConsequence;
  },
): typeof ExitCode.ok {
  if (!options.advisory || !isTfgateError(error) || error.exitCode !== ExitCode.noDecision) throw error;
  const notice = advisoryNotice(
    { kind: 'no-decision', reason: error.message },
    options.consequence ?? ADVISORY_CONSEQUENCE.notEnforced,
    options.advisoryGivenAs,
  );
  options.stderr.write(`${notice}\n`);
  return ExitCode.ok;
}
