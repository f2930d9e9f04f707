// `tfgate gate`: commander wiring only; src/commands/gate.ts does the work.
import type { Command } from 'commander';
import { setExitCode } from '../exit-code.js';
import { exitPromptlyIfInterrupted } from '../interrupt.js';
import { terminalIo } from '../io.js';
import type { GateFlags } from '../normalise/gate.js';
import { addAdvisoryOption, addMinSeverityOption, addReportOptions, addServiceOptions } from '../options.js';

export function registerGate(program: Command): void {
  const gate = program
    .command('gate')
    .description(
      'Release-job gate: fail when the package has open drift at or above a severity. Exit 0 pass (or --advisory), 3 blocked, 4 no decision, 1 usage. The API key is read from TFGATE_API_KEY.',
    )
    .option('--package <id>', 'the package to gate (env TFGATE_PACKAGE)')
    .option(
      '--refresh',
      'run a fresh drift check first (adds some seconds) instead of the last scheduled one',
    )
    .option(
      '--design <file>',
      "the package's design file in this repository: SARIF places drift findings (no line of their own) on it; default: the repository root",
    );
  addMinSeverityOption(gate, 'open findings');
  addAdvisoryOption(gate, 'exit 0', 'usage errors (1)');
  addServiceOptions(gate);
  addReportOptions(gate);
  gate.action(async (flags: GateFlags, command: Command) => {
    // Loaded on demand: the HTTP client costs startup time for every command.
    const { runGate } = await import('../../commands/gate.js');
    const { normaliseGateOptions } = await import('../normalise/gate.js');
    const options = normaliseGateOptions(flags, process.env);
    const outcome = await exitPromptlyIfInterrupted(runGate(options, terminalIo()));
    setExitCode(command, outcome.exitCode);
  });
}
