// Advisory mode, one meaning for check, gate, plan and apply: what would stop a pipeline (a block, or no
// decision at all) is said loudly on stderr and exits 0. Usage errors (1) and terraform failures (2) still fail.
import { ExitCode, isTfgateError } from '../errors/index.js';

/**
 * In advisory mode, turn a missing decision (a TfgateError with exit 4) into a loud notice and exit 0.
 * Anything else, or any error without advisory mode, is thrown again unchanged.
 */
export function advisoryWithoutDecision(
  error: unknown,
  options: { advisory: boolean; stderr: { write(chunk: string): unknown } },
): typeof ExitCode.ok {
  if (!options.advisory || !isTfgateError(error) || error.exitCode !== ExitCode.noDecision) throw error;
  options.stderr.write(
    `ADVISORY MODE: no decision could be reached (${error.message}); not enforced because --advisory was given\n`,
  );
  return ExitCode.ok;
}
