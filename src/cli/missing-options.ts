// A missing required flag, said with the command's name and what the flag is for, from commander's own
// help text: "tfgate findings list needs --package <id>: the package (env TFGATE_PACKAGE)".
import type { Command } from 'commander';
import { TfgateError, UsageError } from '../errors/index.js';
import { commandPath } from './usage-errors.js';

function missingFlags(error: unknown): string[] | undefined {
  if (!(error instanceof UsageError) || error.code !== 'invalid_option') return undefined;
  const missing = error.details?.missing;
  return Array.isArray(missing) && missing.length > 0 ? missing.map(String) : undefined;
}

/**
 * The same error in the command's words when it only lacks flags the command documents; anything else
 * (or a flag commander does not know, such as an option of the CDKTF aspect) is returned unchanged.
 */
export function explainMissingOptions(error: unknown, command: Command | undefined): unknown {
  const missing = missingFlags(error);
  if (!missing || !command || !(error instanceof TfgateError)) return error;
  const options = missing.map((flag) => command.options.find((option) => option.long === flag));
  if (options.some((option) => option === undefined)) return error;
  const path = commandPath(command);
  const lines = options.map((option) => `${option!.flags}: ${option!.description}`);
  const usage = `${path} ${options.map((option) => option!.flags).join(' ')}`;
  return new UsageError(
    'option_required',
    lines.length === 1 ? `${path} needs ${lines[0]}` : `${path} needs:\n  ${lines.join('\n  ')}`,
    { hint: `e.g. ${usage} (${path} --help lists every option)`, cause: error },
  );
}
