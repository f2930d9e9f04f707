// `tfgate findings list|ack` and `tfgate audit`: commander wiring and text output; src/commands/findings.ts does the work.
import type { Command } from 'commander';
import { printable } from '../../client/redact.js';
import type { ManagementFlags } from '../normalise/management.js';
import { addManagementOptions, printJson } from './management-output.js';

export function registerFindings(program: Command): void {
  const findings = program
    .command('findings')
    .description("A package's drift findings, through the management API (key from TFGATE_API_KEY).");

  addManagementOptions(
    findings
      .command('list')
      .description('List drift findings, optionally by status.')
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
      .option('--status <status>', 'only open, acknowledged or resolved findings'),
  ).action(async (flags: ManagementFlags) => {
    const { findingsList, findingsListOptionsSchema } = await import('../../commands/findings.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(findingsListOptionsSchema, flags, process.env, {
      status: '--status',
    });
    const list = await findingsList(options, { env: process.env });
    if (format === 'json') return printJson({ package_id: options.packageId, findings: list });
    const status = options.status ? `${options.status} ` : '';
    if (list.length === 0) {
      process.stdout.write(`package ${options.packageId} has no ${status}findings\n`);
      return;
    }
    const lines = list.map((f) => {
      const ack = f.acknowledgement
        ? `\n    acknowledged by ${printable(f.acknowledgement.by)} at ${printable(f.acknowledgement.at)}: ${printable(f.acknowledgement.reason)}`
        : '';
      return `${printable(f.id)}  ${f.status}  ${f.severity}  ${printable(f.address)}\n    ${printable(f.message)}${ack}`;
    });
    const noun = list.length === 1 ? 'finding' : 'findings';
    process.stdout.write(
      `package ${options.packageId}: ${list.length} ${status}${noun}\n${lines.join('\n')}\n`,
    );
  });

  addManagementOptions(
    findings
      .command('ack')
      .description(
        'Acknowledge a drift finding with a reason: it stops blocking, and the audit log records who, when and why.',
      )
      .argument('<finding-id>', 'the finding (f_…, as findings list shows it)')
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
      .option('--reason <text>', 'why the finding may be accepted (required; recorded in the audit log)'),
  ).action(async (findingId: string, flags: ManagementFlags) => {
    const { findingsAck, findingsAckOptionsSchema } = await import('../../commands/findings.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(
      findingsAckOptionsSchema,
      { ...flags, findingId },
      process.env,
      {
        findingId: '<finding-id>',
        reason: '--reason',
      },
    );
    const finding = await findingsAck(options, { env: process.env });
    if (format === 'json') return printJson(finding);
    process.stdout.write(
      `acknowledged ${printable(finding.id)} (${finding.severity} ${printable(finding.address)}) of package ${options.packageId}: it no longer blocks\n`,
    );
  });
}

export function registerAudit(program: Command): void {
  addManagementOptions(
    program
      .command('audit')
      .description(
        "A package's audit log, oldest first, read to the end: approvals, design changes, acknowledgements, gate decisions.",
      )
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
      .option(
        '--since <time>',
        'only entries at or after this date or time (2026-11-24, 2026-11-24T09:00:00Z)',
      ),
  ).action(async (flags: ManagementFlags) => {
    const { auditList, auditOptionsSchema } = await import('../../commands/findings.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(auditOptionsSchema, flags, process.env, {
      since: '--since',
    });
    const entries = await auditList(options, { env: process.env });
    if (format === 'json') return printJson({ package_id: options.packageId, entries });
    const lines = entries.map((e) => {
      const who = e.key_name ? `${printable(e.key_name)} (${printable(e.account)})` : printable(e.account);
      const details =
        Object.keys(e.details).length > 0 ? `  ${printable(JSON.stringify(e.details), 1000)}` : '';
      return `${printable(e.at)}  ${printable(e.event)}  by ${who}${details}`;
    });
    process.stdout.write(
      lines.length > 0 ? `${lines.join('\n')}\n` : `package ${options.packageId}: no audit entries\n`,
    );
  });
}
