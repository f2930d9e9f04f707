// `tfgate accounts create` and `tfgate keys revoke` (admin API): commander wiring; src/commands/accounts.ts does the work.
import type { Command } from 'commander';
import { printable } from '../../client/redact.js';
import type { ManagementFlags } from '../normalise/management.js';
import { addManagementOptions, printJson } from './management-output.js';

export function registerAccounts(program: Command): void {
  const accounts = program
    .command('accounts')
    .description('Accounts, through the admin API (needs a key with the admin scope in TFGATE_API_KEY).');
  addManagementOptions(
    accounts
      .command('create')
      .description('Create an account with a plan; then give it keys with tfgate keys create.')
      .argument('<name>', 'the account name (a-z 0-9 . _ -)')
      .option(
        '--plan <plan>',
        'starter, team, large or enterprise (the gate, evaluation and bundles need large+)',
      ),
  ).action(async (name: string, flags: ManagementFlags) => {
    const { accountsCreate, accountsCreateOptionsSchema } = await import('../../commands/accounts.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(
      accountsCreateOptionsSchema,
      { ...flags, name },
      process.env,
      {
        name: '<name>',
        plan: '--plan',
      },
    );
    const account = await accountsCreate(options, { env: process.env });
    if (format === 'json') return printJson(account);
    process.stdout.write(`created account ${printable(account.name)} on plan ${printable(account.plan)}\n`);
  });
}

/** `tfgate keys list` and `tfgate keys revoke <key-id>`, beside keys create. */
export function registerKeysListRevoke(keys: Command): void {
  addManagementOptions(
    keys
      .command('list')
      .description("An account's API keys: id, name, scopes, created and revoked times (never a key itself).")
      .option('--account <name>', 'the account'),
  ).action(async (flags: ManagementFlags) => {
    const { keysList, keysListOptionsSchema } = await import('../../commands/accounts.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(keysListOptionsSchema, flags, process.env, {
      account: '--account',
    });
    const list = await keysList(options, { env: process.env });
    if (format === 'json') return printJson(list);
    const lines = list.api_keys.map(
      (k) =>
        `${printable(k.id)}  ${printable(k.name)}  ${printable(k.scopes.join(','))}  created ${printable(k.created_at)}${k.revoked_at ? `  revoked ${printable(k.revoked_at)}` : ''}`,
    );
    process.stdout.write(
      lines.length > 0 ? `${lines.join('\n')}\n` : `account ${options.account} has no API keys\n`,
    );
  });

  addManagementOptions(
    keys
      .command('revoke')
      .description('Revoke an API key, at once, on every instance.')
      .argument('<key-id>', 'the key id (key_…), as keys create printed it; never the key itself'),
  ).action(async (keyId: string, flags: ManagementFlags) => {
    const { keysRevoke, keysRevokeOptionsSchema } = await import('../../commands/accounts.js');
    const { normaliseManagement } = await import('../normalise/management.js');
    const { options, format } = normaliseManagement(
      keysRevokeOptionsSchema,
      { ...flags, keyId },
      process.env,
      {
        keyId: '<key-id>',
      },
    );
    const revoked = await keysRevoke(options, { env: process.env });
    if (format === 'json') return printJson(revoked);
    process.stdout.write(
      revoked.already_revoked
        ? `key ${revoked.id} was already revoked${revoked.revoked_at ? ` (at ${printable(revoked.revoked_at)})` : ''}; nothing changed\n`
        : `revoked key ${revoked.id}\n`,
    );
  });
}
