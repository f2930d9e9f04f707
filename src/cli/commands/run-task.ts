// `tfgate run-task configure|show`: commander wiring and the text output; src/commands/run-task.ts does the work.
import type { Command } from 'commander';
import { printable } from '../../client/redact.js';
import type { ManagementFlags } from '../normalise/management.js';
import { addManagementOptions, printJson } from './management-output.js';

export function registerRunTask(program: Command): void {
  const runTask = program
    .command('run-task')
    .description(
      "A package's HCP Terraform / Terraform Enterprise run task, through the management API (key from TFGATE_API_KEY).",
    );

  addManagementOptions(
    runTask
      .command('configure')
      .description(
        'Set the run task HMAC key (from TFGATE_RUN_TASK_HMAC_KEY, or --generate-key) and threshold; prints the Endpoint URL to paste into HCP Terraform. A generated key is printed once, alone on stdout.',
      )
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
      .option(
        '--min-severity <severity>',
        'findings at or above it fail the run task: low (default), medium, high, critical',
      )
      .option('--generate-key', 'generate the HMAC key and print it once, on stdout'),
  ).action(async (flags: ManagementFlags) => {
    const { runTaskConfigure, runTaskConfigureOptionsSchema } = await import('../../commands/run-task.js');
    const { normaliseRunTaskConfigure } = await import('../normalise/run-task.js');
    const { options, format } = normaliseRunTaskConfigure(runTaskConfigureOptionsSchema, flags, process.env);
    const result = await runTaskConfigure(options, { env: process.env });
    if (format === 'json') return printJson(result);
    const where = `Endpoint URL: ${printable(result.url)}`;
    if (result.hmac_key !== undefined) {
      // The key alone on stdout (for a pipe into a secret store); everything else on stderr.
      process.stdout.write(`${result.hmac_key}\n`);
      process.stderr.write(
        `run task of package ${printable(result.package_id)} configured (min severity ${result.min_severity ?? 'low'}). In HCP Terraform, create a run task with\n  ${where}\n  HMAC key: the key printed above, shown this once; store it in your secret store\n`,
      );
      return;
    }
    process.stdout.write(
      `run task of package ${printable(result.package_id)} configured (min severity ${result.min_severity ?? 'low'}). In HCP Terraform, create a run task with\n  ${where}\n  HMAC key: the value of TFGATE_RUN_TASK_HMAC_KEY\n`,
    );
  });

  addManagementOptions(
    runTask
      .command('show')
      .description('Whether the run task is configured, its threshold and Endpoint URL; never the key.')
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)'),
  ).action(async (flags: ManagementFlags) => {
    const { runTaskShow, runTaskShowOptionsSchema } = await import('../../commands/run-task.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(runTaskShowOptionsSchema, flags, process.env);
    const view = await runTaskShow(options, { env: process.env });
    if (format === 'json') return printJson(view);
    process.stdout.write(
      view.configured
        ? `run task of package ${printable(view.package_id)}: configured, min severity ${view.min_severity ?? 'low'}\n  Endpoint URL: ${printable(view.url)}\n  allowed origins: ${view.allowed_origins.map((origin) => printable(origin)).join(', ')}\n`
        : `run task of package ${printable(view.package_id)}: not configured; set it up with tfgate run-task configure --package ${printable(view.package_id)} --generate-key\n`,
    );
  });
}
