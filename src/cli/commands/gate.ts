// `tfgate gate`: commander wiring only; src/commands/gate.ts does the work.
import type { Command } from 'commander';
import type { GateFlags } from '../../commands/gate.js';
import { collect } from '../../options/common.js';
import { setExitCode } from '../program.js';
import { useColor } from '../progress.js';

export function registerGate(program: Command): void {
  program
    .command('gate')
    .description(
      'Release-job gate: fail when the package has open drift at or above a severity. Exit 0 pass (or --advisory), 3 blocked, 4 no decision, 1 usage. The API key is read from TFGATE_API_KEY.',
    )
    .option('--package <id>', 'the package to gate (env TFGATE_PACKAGE)')
    .option(
      '--min-severity <severity>',
      'block on open findings at or above: low|medium|high|critical (default low; env TFGATE_MIN_SEVERITY)',
    )
    .option(
      '--refresh',
      'run a fresh drift check first (adds some seconds) instead of the last scheduled one',
    )
    .option(
      '--advisory',
      'exit 0 on a block or when no decision can be reached (service unreachable, package not approved), saying so loudly on stderr (env TFGATE_ADVISORY); usage errors (1) still fail',
    )
    .option('--base-url <url>', 'the tfgate service (env TFGATE_BASE_URL)')
    .option('--ca-file <pem>', 'trust this CA for the service certificate (or NODE_EXTRA_CA_CERTS)')
    .option('--timeout <seconds>', 'wait this long for a response, and between response chunks')
    .option(
      '--retries <n>',
      'retries on connection errors and 429/502/503/504 (default 3; env TFGATE_RETRIES)',
    )
    .option('--format <format>', 'report format: text|json|markdown|sarif|junit (repeatable)', collect)
    .option(
      '--output <file>',
      'write the report of the --format at the same position to this file (repeatable)',
      collect,
    )
    .action(async (flags: GateFlags, command: Command) => {
      // Loaded on demand: the HTTP client costs startup time for every command.
      const { resolveGateOptions, runGate } = await import('../../commands/gate.js');
      const options = resolveGateOptions(flags, process.env);
      const outcome = await runGate(options, {
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
        color: useColor(process.stdout, process.env),
      });
      setExitCode(command, outcome.exitCode);
    });
}
