import { Command } from 'commander';
import { terminalSafeError } from '../report/terminal-safe.js';
import { COMMAND_REGISTRATIONS } from './commands/index.js';
import { refuseRepeatedOptions } from './options.js';
import { explainExcessArguments, pointToHelpAfterErrors } from './usage-errors.js';
import { packageVersion } from './version.js';

/**
 * The program with every command, or, when `argv` runs one (`tfgate check ...`), with that command alone: its
 * run, its errors and its own --help need no other, and building all of them (~100 options) cost a one-shot
 * command ~8 ms. The program's own help, `tfgate help <command>` and an unknown command get every command.
 */
export function buildProgram(argv?: readonly string[]): Command {
  const program = new Command('tfgate')
    .description(
      'Enforce an approved infrastructure design between a reviewed Terraform plan and production.',
    )
    .version(packageVersion(), '-V, --version', 'print the version of tfgate')
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      writeOut: (s) => process.stdout.write(s),
      // commander's errors quote what was typed ("unknown option '--x'"): its control characters are shown,
      // not obeyed, as in every other message. Subcommands share this configuration.
      outputError: (s, write) => write(terminalSafeError(s)),
    });
  const running = COMMAND_REGISTRATIONS.find((command) => command.name === argv?.[2]);
  for (const { register } of running ? [running] : COMMAND_REGISTRATIONS) register(program);
  refuseRepeatedOptions(program);
  explainExcessArguments(program);
  pointToHelpAfterErrors(program);
  return program;
}
