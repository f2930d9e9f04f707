import type { Command } from 'commander';
import { printable } from '../../client/redact.js';
import type { KeysCreateFlags } from '../normalise/keys.js';
import { addConnectionOptions } from '../options.js';
import { registerKeysListRevoke } from './accounts.js';

export function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description('API keys, through the admin API (needs a key with the admin scope in TFGATE_API_KEY).');
  const create = keys
    .command('create')
    .description('Create an API key. The key is printed once, to stdout only; store it in your secret store.')
    .option('--account <name>', 'account the key belongs to')
    .option('--name <name>', 'a name for the key (shown in audit records)')
    .option('--scopes <scopes...>', 'compliance:read, compliance:write, admin (space or comma separated)');
  addConnectionOptions(create).action(async (flags: KeysCreateFlags) => {
    // Loaded on demand: the HTTP client costs startup time for every command.
    const { keysCreate } = await import('../../commands/keys.js');
    const { normaliseKeysCreateOptions } = await import('../normalise/keys.js');
    const created = await keysCreate(normaliseKeysCreateOptions(flags), { env: process.env });
    // The key was checked to be visible ASCII; the rest is the service's text, shown harmless.
    process.stdout.write(`${created.key}\n`);
    process.stderr.write(
      `created key ${printable(created.id)} "${printable(created.name)}" for account ${printable(created.account)} with scopes ${printable(created.scopes.join(', '))}\n`,
    );
  });
  registerKeysListRevoke(keys);
}
