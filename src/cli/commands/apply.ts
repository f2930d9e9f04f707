// `tfgate apply`: commander wiring only; src/commands/apply.ts does the work (loaded in the action).
import type { Command } from 'commander';
import { setExitCode } from '../exit-code.js';
import { exitPromptlyIfInterrupted } from '../interrupt.js';
import type { WrapperFlags } from '../normalise/wrapper.js';
import { addWrapperOptions, cliContext } from './plan.js';

export function registerApply(program: Command): void {
  addWrapperOptions(
    program
      .command('apply')
      .description(
        'In place of terraform apply: plan, evaluate the plan against the approved design, and apply that same plan only when nothing blocks. Exit 0 applied or no changes, 1 usage, 2 terraform failed, 3 blocked, 4 no decision.',
      ),
  )
    .option(
      '--plan-file <planfile>',
      'apply this saved plan (from `tfgate plan --out`, e.g. Atlantis $PLANFILE) after evaluating it again, instead of planning (relative to the current directory, not --chdir)',
    )
    .action(
      async (terraformArgs: string[], flags: WrapperFlags & { planFile?: string }, command: Command) => {
        // Both at once: each is a few chunks to load before terraform can start.
        const [{ runApply }, { normaliseApplyOptions }] = await Promise.all([
          import('../../commands/apply.js'),
          import('../normalise/wrapper.js'),
        ]);
        const options = normaliseApplyOptions(flags, terraformArgs, process.env);
        const result = await exitPromptlyIfInterrupted(runApply(options, cliContext()));
        setExitCode(command, result.exitCode);
      },
    );
}
