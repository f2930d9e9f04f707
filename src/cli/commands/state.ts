import type { Command } from 'commander';
import { printable } from '../../client/redact.js';
import { plural } from '../../errors/plural.js';
import { exitPromptlyIfInterrupted } from '../interrupt.js';
import type { StatePushFlags } from '../normalise/state.js';
import { addConnectionOptions } from '../options.js';
import { printJson } from './management-output.js';

export function registerState(program: Command): void {
  const state = program.command('state').description('Observed state for drift detection.');
  const push = state
    .command('push')
    .description(
      'Push the observed state (terraform show -json) to the service. Without --state-json, runs terraform show -json itself.\nThe key comes from TFGATE_API_KEY (never a flag).',
    )
    .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
    .option('--state-json <file>', 'a file with `terraform show -json` output on the state (- for stdin)')
    .option('--chdir <dir>', 'directory of the Terraform configuration (when terraform runs)')
    .option('--terraform-bin <bin>', 'terraform, tofu or a path (env TFGATE_TERRAFORM_BIN)')
    .option('--format <format>', 'text (default, on stderr) or json (one document on stdout)');
  addConnectionOptions(push).action(async (flags: StatePushFlags) => {
    // Loaded on demand: the HTTP client costs startup time for every command.
    const { statePush } = await import('../../commands/state-push.js');
    const { normaliseStatePushOptions } = await import('../normalise/state.js');
    const { options, format } = normaliseStatePushOptions(flags, process.env);
    const result = await exitPromptlyIfInterrupted(statePush(options, { env: process.env }));
    if (format === 'json') {
      printJson({
        package_id: result.packageId,
        resources: result.resources,
        pushed_at: result.pushedAt,
        source: result.source,
      });
      return;
    }
    process.stderr.write(
      `pushed observed state of package ${result.packageId}: ${plural(result.resources, 'resource')} from ${result.source} at ${printable(result.pushedAt)}\n`,
    );
  });
}
