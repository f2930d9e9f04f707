// `tfgate state-source set|show|clear`: commander wiring and text output; src/commands/state-source.ts does the work.
import type { Command } from 'commander';
import { printable } from '../../client/redact.js';
import { collect } from '../../options/collect.js';
import type { ManagementFlags } from '../normalise/management.js';
import type { StateSourceSetFlags } from '../normalise/state-source.js';
import { addManagementOptions, printJson } from './management-output.js';

export function registerStateSource(program: Command): void {
  const source = program
    .command('state-source')
    .description(
      "Where a package's state lives: the service's drift checks then read it from that backend now, through terraform (key from TFGATE_API_KEY).",
    );

  addManagementOptions(
    source
      .command('set')
      .description(
        'Name the backend and its non-secret settings; credentials stay in the environment of tfgate serve.',
      )
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
      .option('--type <type>', 's3, gcs, azurerm, pg, http, remote, cloud, kubernetes, consul or local')
      .option('--config <key=value>', 'a backend setting (repeatable), e.g. schema_name=payments', collect)
      .option('--config-json <json>', 'settings as a JSON object, for nested blocks (--config wins)')
      .option('--fallback <fallback>', 'none (default: a failed read fails the check) or pushed'),
  ).action(async (flags: StateSourceSetFlags) => {
    const { stateSourceSet, stateSourceSetOptionsSchema } = await import('../../commands/state-source.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { stateSourceSettings } = await import('../normalise/state-source.js');
    const { configJson: _json, ...rest } = flags;
    const { options, format } = normaliseManagement(
      stateSourceSetOptionsSchema,
      { ...rest, config: stateSourceSettings(flags) },
      process.env,
      { type: '--type', config: '--config', fallback: '--fallback' },
    );
    const view = await stateSourceSet(options, { env: process.env });
    if (format === 'json') return printJson(view);
    process.stdout.write(
      `package ${options.packageId} reads its state from the ${printable(view.type)} backend (fallback: ${printable(view.fallback)})\n`,
    );
  });

  addManagementOptions(
    source
      .command('show')
      .description("The package's state source, or that its checks judge pushed state.")
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)'),
  ).action(async (flags: ManagementFlags) => {
    const { stateSourceShow, stateSourcePackageOptionsSchema } = await import(
      '../../commands/state-source.js'
    );
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(stateSourcePackageOptionsSchema, flags, process.env);
    const view = await stateSourceShow(options, { env: process.env });
    if (format === 'json') return printJson(view ?? { package_id: options.packageId, type: null });
    if (!view) {
      process.stdout.write(
        `package ${options.packageId} has no state source: its drift checks judge the state pushed with tfgate state push\n`,
      );
      return;
    }
    process.stdout.write(
      `package ${options.packageId}: ${printable(view.type)} backend, fallback ${printable(view.fallback)}, set by ${printable(view.updated_by)} at ${printable(view.updated_at)}\n` +
        `  settings: ${printable(JSON.stringify(view.config), 1000)}\n`,
    );
  });

  addManagementOptions(
    source
      .command('clear')
      .description('Go back to pushed state (tfgate state push).')
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)'),
  ).action(async (flags: ManagementFlags) => {
    const { stateSourceClear, stateSourcePackageOptionsSchema } = await import(
      '../../commands/state-source.js'
    );
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(stateSourcePackageOptionsSchema, flags, process.env);
    const cleared = await stateSourceClear(options, { env: process.env });
    if (format === 'json') return printJson(cleared);
    process.stdout.write(`package ${options.packageId} judges pushed state again\n`);
  });
}
