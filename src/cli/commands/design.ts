// `tfgate design push|approve|show|diff`: commander wiring and the text output; src/commands/design.ts does the work.
import type { Command } from 'commander';
import { printable } from '../../client/redact.js';
import type { DesignDiff } from '../../commands/design.js';
import { terminalSafeLines } from '../../report/terminal-safe.js';
import type { ManagementFlags } from '../normalise/management.js';
import { addManagementOptions, printJson } from './management-output.js';

export function registerDesign(program: Command): void {
  const design = program
    .command('design')
    .description("A package's approved design, through the management API (key from TFGATE_API_KEY).");

  addManagementOptions(
    design
      .command('push')
      .description(
        'Upload a design (YAML or JSON). Prints the new revision and whether it changed; a changed design needs approval again.',
      )
      .argument('<design.yaml>', 'the design document')
      .option('--package <id>', "the package (default: the design's package_id; must agree with it)"),
  ).action(async (file: string, flags: ManagementFlags) => {
    const { designPush, designPushOptionsSchema } = await import('../../commands/design.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(
      designPushOptionsSchema,
      { ...flags, file },
      process.env,
      {
        file: '<design.yaml>',
      },
    );
    const result = await designPush(options, { env: process.env });
    if (format === 'json') return printJson(result);
    const state = result.approved
      ? 'approved'
      : `awaiting approval: tfgate design approve --package ${result.package_id} --revision ${printable(result.revision)}`;
    process.stdout.write(
      `package ${result.package_id}: revision ${printable(result.revision)} (${result.changed ? 'changed' : 'unchanged'}), ${state}\n`,
    );
  });

  addManagementOptions(
    design
      .command('approve')
      .description(
        "Approve the package's current design; with --revision, only if it is still that revision.",
      )
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
      .option(
        '--revision <revision>',
        'approve only this revision (as design push or design show printed it)',
      ),
  ).action(async (flags: ManagementFlags) => {
    const { designApprove, designApproveOptionsSchema } = await import('../../commands/design.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(designApproveOptionsSchema, flags, process.env, {
      revision: '--revision',
    });
    const view = await designApprove(options, { env: process.env });
    if (format === 'json') return printJson(view);
    process.stdout.write(
      `package ${printable(view.package_id)}: revision ${printable(view.revision)} approved\n`,
    );
  });

  addManagementOptions(
    design
      .command('show')
      .description("The package's design, revision and approval.")
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)'),
  ).action(async (flags: ManagementFlags) => {
    const { designShow, designPackageOptionsSchema } = await import('../../commands/design.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(designPackageOptionsSchema, flags, process.env);
    const view = await designShow(options, { env: process.env });
    if (format === 'json') return printJson(view);
    const { toYamlText } = await import('../../design/yaml-text.js');
    const approval = view.approved
      ? `approved${view.approved_at ? ` at ${printable(view.approved_at)}` : ''}`
      : `awaiting approval (approved revision: ${printable(view.approved_revision ?? 'none')})`;
    process.stdout.write(
      `package ${printable(view.package_id)}${view.name ? ` (${printable(view.name)})` : ''}\nrevision ${printable(view.revision)}, ${approval}\n` +
        `last drift check: ${printable(view.last_drift_check_at ?? 'never')}\n\n${designText(toYamlText(view.design))}`,
    );
  });

  addManagementOptions(
    design
      .command('diff')
      .description(
        "Compare the package's proposed (current) design with its approved design, by kind, capability and catalog entry; with a file, that file instead of the current design.",
      )
      .argument(
        '[design.yaml]',
        'a local design to compare with the approved one (default: the current revision on the service)',
      )
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)'),
  ).action(async (file: string | undefined, flags: ManagementFlags) => {
    const { designDiff, designPackageOptionsSchema } = await import('../../commands/design.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(
      designPackageOptionsSchema,
      { ...flags, file },
      process.env,
      {
        file: '[design.yaml]',
      },
    );
    const diff = await designDiff(options, { env: process.env });
    if (format === 'json') return printJson(diff);
    process.stdout.write(diffText(diff));
  });
}

function diffText(diff: DesignDiff): string {
  const proposed =
    diff.proposed.revision === undefined
      ? diff.proposed.source
      : diff.proposed.revision === diff.approved.revision
        ? `revision ${printable(diff.proposed.revision)} (approved, nothing proposed)`
        : `proposed revision ${printable(diff.proposed.revision)}`;
  const head = `${proposed} against the approved design of package ${diff.package_id} (revision ${printable(diff.approved.revision)})`;
  if (diff.identical) return `${head}: no difference in kinds, capabilities or catalog\n`;
  const lines = [`${head}:`];
  const list = (sign: string, what: string, items: string[]) => {
    for (const item of items) lines.push(`  ${sign} ${what} ${printable(item)}`);
  };
  list('+', 'kind', diff.kinds.added);
  list('-', 'kind', diff.kinds.removed);
  list('+', 'capability', diff.capabilities.added);
  list('-', 'capability', diff.capabilities.removed);
  for (const c of diff.capabilities.changed) {
    lines.push(`  ~ capability ${printable(c.name)}`);
    list('    +', 'depends on', c.depends_on_added);
    list('    -', 'depends on', c.depends_on_removed);
  }
  list('+', 'catalog', diff.catalog.added);
  list('-', 'catalog', diff.catalog.removed);
  list('~', 'catalog', diff.catalog.changed);
  return `${lines.join('\n')}\n`;
}

/** The design as YAML, line by line: its line breaks kept, any other control character shown as an escape. */
function designText(yaml: string): string {
  const text = terminalSafeLines(yaml);
  return text.endsWith('\n') ? text : `${text}\n`;
}
