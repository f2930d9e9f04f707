// `tfgate findings list|ack` and `tfgate audit`: commander wiring and text output; src/commands/findings.ts does the work.

import type { Command } from 'commander';
import { printable } from '../../client/redact.js';
import { UsageError } from '../../errors/index.js';
import { nounFor, plural } from '../../errors/plural.js';
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
        ? `\n    ${f.status === 'open' ? 'acknowledgement expired; was acknowledged' : 'acknowledged'} by ${printable(f.acknowledgement.by)} at ${printable(f.acknowledgement.at)}: ${printable(f.acknowledgement.reason)}${f.acknowledgement.expires_at ? ` (${f.status === 'open' ? 'expired at' : 'until'} ${printable(f.acknowledgement.expires_at)})` : ''}`
        : '';
      return `${printable(f.id)}  ${f.status}  ${f.severity}  ${printable(f.address)}\n    ${printable(f.message)}${ack}`;
    });
    const noun = nounFor(list.length, 'finding');
    process.stdout.write(
      `package ${options.packageId}: ${list.length} ${status}${noun}\n${lines.join('\n')}\n`,
    );
  });

  addManagementOptions(
    findings
      .command('ack')
      .description(
        'Acknowledge a drift finding, or with --plan-finding a plan finding, with a reason and an optional expiry: it stops blocking until then, and the audit log records who, when and why.',
      )
      .argument('[finding-id]', 'the drift finding (f_…, as findings list shows it)')
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
      .option(
        '--plan-finding <rule:address>',
        'a plan finding instead: one rule on one exact address, e.g. capability_dependency_destroyed:aws_db_instance.ledger',
      )
      .option('--reason <text>', 'why the finding may be accepted (required; recorded in the audit log)')
      .option('--expires-in <duration>', 'the acknowledgement ends after this long: 90m, 12h, 30d, 2w')
      .option(
        '--expires-at <time>',
        'the acknowledgement ends at this RFC 3339 time, e.g. 2026-12-31T18:00:00Z',
      ),
  ).action(async (findingId: string | undefined, flags: ManagementFlags) => {
    const commands = await import('../../commands/findings.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const names = {
      findingId: '<finding-id>',
      planFinding: '--plan-finding',
      reason: '--reason',
      expiresIn: '--expires-in',
      expiresAt: '--expires-at',
    };
    if (flags.planFinding !== undefined) {
      if (findingId !== undefined) throw bothFindings();
      const { options, format } = normaliseManagement(
        commands.planAckOptionsSchema,
        flags,
        process.env,
        names,
      );
      const ack = await commands.planFindingAck(options, { env: process.env });
      if (format === 'json') return printJson(ack);
      process.stdout.write(
        `acknowledged ${ack.rule} on ${printable(ack.address)} (${printable(ack.finding_id)}) in the plans of package ${options.packageId}: it no longer blocks${expiryText(ack.expires_at)}\n`,
      );
      return;
    }
    const { options, format } = normaliseManagement(
      commands.findingsAckOptionsSchema,
      { ...flags, findingId },
      process.env,
      names,
    );
    const finding = await commands.findingsAck(options, { env: process.env });
    if (format === 'json') return printJson(finding);
    process.stdout.write(
      `acknowledged ${printable(finding.id)} (${finding.severity} ${printable(finding.address)}) of package ${options.packageId}: it no longer blocks${expiryText(finding.acknowledgement?.expires_at)}\n`,
    );
  });

  addManagementOptions(
    findings
      .command('revoke')
      .description(
        'Revoke the acknowledgement of a drift finding, or with --plan-finding of a plan finding: it is open again at once (it blocks at or above the threshold); audited.',
      )
      .argument('[finding-id]', 'the drift finding (f_…, as findings list shows it)')
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
      .option(
        '--plan-finding <rule:address>',
        'a plan finding instead, e.g. unsanctioned_creation:aws_sqs_queue.jobs',
      ),
  ).action(async (findingId: string | undefined, flags: ManagementFlags) => {
    const commands = await import('../../commands/findings.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    if (flags.planFinding === undefined) {
      const { options, format } = normaliseManagement(
        commands.findingsRevokeOptionsSchema,
        { ...flags, findingId },
        process.env,
        { findingId: '<finding-id>' },
      );
      const finding = await commands.findingsRevoke(options, { env: process.env });
      if (format === 'json') return printJson(finding);
      process.stdout.write(
        `revoked the acknowledgement of ${printable(finding.id)} (${finding.severity} ${printable(finding.address)}) of package ${options.packageId}: it is open again\n`,
      );
      return;
    }
    if (findingId !== undefined) throw bothFindings();
    const { options, format } = normaliseManagement(commands.planRevokeOptionsSchema, flags, process.env, {
      planFinding: '--plan-finding',
    });
    const revoked = await commands.planFindingRevoke(options, { env: process.env });
    if (format === 'json') return printJson(revoked);
    process.stdout.write(
      `revoked the acknowledgement of ${revoked.rule} on ${printable(revoked.address)} in package ${options.packageId}: it blocks again\n`,
    );
  });

  addManagementOptions(
    findings
      .command('plan-acks')
      .description("List the package's plan acknowledgements (revoked ones left out, expired ones marked).")
      .option('--package <id>', 'the package (env TFGATE_PACKAGE)'),
  ).action(async (flags: ManagementFlags) => {
    const { planAcksList, planAcksListOptionsSchema } = await import('../../commands/findings.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(planAcksListOptionsSchema, flags, process.env);
    const acks = await planAcksList(options, { env: process.env });
    if (format === 'json') return printJson({ package_id: options.packageId, plan_acknowledgements: acks });
    if (acks.length === 0) {
      process.stdout.write(`package ${options.packageId} has no plan acknowledgements\n`);
      return;
    }
    const now = Date.now();
    const lines = acks.map((a) => {
      const expired = a.expires_at !== undefined && Date.parse(a.expires_at) <= now;
      const until =
        a.expires_at === undefined
          ? 'no expiry'
          : `${expired ? 'EXPIRED at' : 'until'} ${printable(a.expires_at)}`;
      return `${a.rule}:${printable(a.address)}  ${until}\n    by ${printable(a.by)} (${printable(a.account)}) at ${printable(a.at)}: ${printable(a.reason)}`;
    });
    process.stdout.write(
      `package ${options.packageId}: ${plural(acks.length, 'plan acknowledgement')}\n${lines.join('\n')}\n`,
    );
  });
}

function expiryText(expiresAt: string | undefined): string {
  return expiresAt === undefined ? '' : ` until ${printable(expiresAt)}`;
}

function bothFindings(): UsageError {
  return new UsageError(
    'invalid_option',
    'give either a drift finding id or --plan-finding <rule>:<address>, not both',
  );
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
      // Key names need not be unique (a revoked key's name is often reused): the id says which key it was.
      const key = e.key_id ? `${printable(e.key_id)}, ` : '';
      const who = e.key_name
        ? `${printable(e.key_name)} (${key}${printable(e.account)})`
        : printable(e.account);
      const details =
        Object.keys(e.details).length > 0 ? `  ${printable(JSON.stringify(e.details), 1000)}` : '';
      return `${printable(e.at)}  ${printable(e.event)}  by ${who}${details}`;
    });
    process.stdout.write(
      lines.length > 0 ? `${lines.join('\n')}\n` : `package ${options.packageId}: no audit entries\n`,
    );
  });
}
