import { type Command, Option } from 'commander';
import { SERVE_SETTINGS } from '../../service/serve-settings.js';

export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description(
      'Run the reference conformance service: the gate, plan evaluation, signed bundles, drift with audited acknowledgements.\n' +
        'Embedded store (SQLite) in --data-dir by default; PostgreSQL with --database-url for many instances.',
    );
  for (const setting of SERVE_SETTINGS) {
    const defaultText = setting.default === undefined ? '' : `; default ${setting.default}`;
    command.addOption(new Option(setting.flag, `${setting.help} (env ${setting.env}${defaultText})`));
  }
  command.addHelpText(
    'after',
    `
${settingsTable()}

Environment only (secrets never go on a command line):
  TFGATE_BOOTSTRAP_API_KEY  on the first start (no API key exists yet), creates account "default"
                            (plan enterprise) with this key holding every scope; ignored afterwards
  DATABASE_URL              same as TFGATE_DATABASE_URL

Flags win over environment variables. Logs are JSON lines on stdout, one per request, never with a key.
SIGTERM or SIGINT stops accepting requests and lets in-flight ones finish (--shutdown-timeout).

Signing key rotation: bundles are signed with the platform key (RSA, generated on first start into
<data-dir>/signing-key.pem with mode 0600, or into the database with PostgreSQL). To rotate, start every
instance with --signing-key-file <new.pem> (or replace the file / delete the stored key and restart); bundle
revisions change with the key, so clients fetch the new public key and bundles on their next pull.`,
  );
  command.action(async (opts: Record<string, unknown>) => {
    // Loaded on demand: the service (pg, the HTTP stack) is heavy, and startup time counts for every command.
    const { serve } = await import('../../commands/serve.js');
    const { normaliseServeOptions } = await import('../normalise/serve.js');
    await serve({ config: normaliseServeOptions(opts, process.env) });
  });
}

/** One line per setting: its flag, its environment variable and its default. */
function settingsTable(): string {
  const rows = SERVE_SETTINGS.map((s) => [s.flag, s.env, s.default === undefined ? '-' : String(s.default)]);
  const header = ['flag', 'environment variable', 'default'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i < cells.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ')}`;
  return ['Settings, one per line (a flag wins over its variable):', line(header), ...rows.map(line)].join(
    '\n',
  );
}
