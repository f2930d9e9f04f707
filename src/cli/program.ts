import { Command } from 'commander';
import { COMMAND_REGISTRATIONS } from './commands/index.js';
import { refuseRepeatedOptions } from './options.js';
import { packageVersion } from './version.js';

export function buildProgram(): Command {
  const program = new Command('tfgate')
    .description(
      'Enforce an approved infrastructure design between a reviewed Terraform plan and production.',
    )
    .version(packageVersion(), '-V, --version', 'print the version of tfgate')
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  for (const register of COMMAND_REGISTRATIONS) register(program);
  refuseRepeatedOptions(program);
  return program;
}
