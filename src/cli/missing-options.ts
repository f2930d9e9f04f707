// A missing required flag, said with the command's name and what the flag is for, from commander's own
// help text: "tfgate findings list needs --package <id>: the package (env TFGATE_PACKAGE)".
import type { Command } from 'commander';
import { TfgateError, UsageError } from '../errors/index.js';
import { OPTIONS_HINT } from '../errors/options.js';
import { commandPath } from './usage-errors.js';

function missingFlags(error: unknown): string[] | undefined {
  if (!(error instanceof UsageError) || error.code !== 'invalid_option') return undefined;
  const missing = error.details?.missing;
  return Array.isArray(missing) && missing.length > 0 ? missing.map(String) : undefined;
}

/**
 * The same error in the command's words when it only lacks flags the command documents. Any other options
 * error (or a flag commander does not know, such as an option of the CDKTF aspect) keeps its message and
 * points to the command's --help.
 */
export function explainMissingOptions(error: unknown, command: Command | undefined): unknown {
  const missing = missingFlags(error);
  if (!missing || !command || !(error instanceof TfgateError)) return pointToCommandHelp(error, command);
  const options = missing.map((flag) => command.options.find((option) => option.long === flag));
  if (options.some((option) => option === undefined)) return pointToCommandHelp(error, command);
  const path = commandPath(command);
  const lines = options.map((option) => `${option!.flags}: ${option!.description}`);
  const usage = `${path} ${options.map((option) => option!.flags).join(' ')}`;
  return new UsageError(
    'option_required',
    lines.length === 1 ? `${path} needs ${lines[0]}` : `${path} needs:\n  ${lines.join('\n  ')}`,
    { hint: `e.g. ${usage} (${path} --help lists every option)`, cause: error },
  );
}

/** Any other options error: "run with --help" becomes the command's own "tfgate check --help lists every option". */
function pointToCommandHelp(error: unknown, command: Command | undefined): unknown {
  if (!command || !(error instanceof UsageError) || error.hint !== OPTIONS_HINT) return error;
  return new UsageError(error.code, error.message, {
    hint: `${commandPath(command)} --help lists every option`,
    ...(error.details === undefined ? {} : { details: error.details }),
    cause: error,
  });
}
