// `tfgate plan`: commander wiring only; src/commands/plan.ts does the work (loaded in the action, so other
// commands start without terraform's and the policy's modules).
import type { Command } from 'commander';
import type { WrapperContext } from '../../commands/plan.js';
import { setExitCode } from '../exit-code.js';
import { exitPromptlyIfInterrupted } from '../interrupt.js';
import { terminalIo } from '../io.js';
import type { WrapperFlags } from '../normalise/wrapper.js';
import { addAdvisoryOption, addMinSeverityOption, addReportOptions, addRouteOptions } from '../options.js';
import { createProgress, useColor } from '../progress.js';

/** The route, severity, report and terraform flags; the same names and meanings as `tfgate check`. */
export function addWrapperOptions(command: Command): Command {
  command.argument(
    '[terraform-plan-args...]',
    'after --: terraform plan flags (-var, -var-file, -target, -replace, ...)',
  );
  // One of tfgate's options after `--` went to terraform: say so, rather than that the route is missing.
  command.hook('preAction', () => {
    const own = new Set(command.options.flatMap((o) => (o.long && o.long !== '--chdir' ? [o.long] : [])));
    const misplaced = command.args.find((arg) => own.has(arg.split('=')[0]!));
    if (misplaced === undefined) return;
    const flag = misplaced.split('=')[0]!;
    command.error(
      `error: ${flag} comes after --, where terraform's plan flags go: tfgate's options go before --, e.g. tfgate ${command.name()} ${flag} … -- -var k=v`,
      { code: 'commander.optionAfterDashes', exitCode: 1 },
    );
  });
  addRouteOptions(command)
    .option(
      '--terraform-bin <bin>',
      'terraform, tofu or a path (env TFGATE_TERRAFORM_BIN; default terraform)',
    )
    .option('--chdir <dir>', 'the terraform working directory (passed as -chdir)')
    .option(
      '--cdktf-stack <name>',
      'CDKTF: run terraform in the synthesized stack <name> (cdktf.out/stacks/<name>, per cdktf.json "output"; run `cdktf synth` and `terraform init` there first) and show construct paths beside addresses; not with --chdir',
    );
  addMinSeverityOption(command);
  addReportOptions(command, { located: true });
  addAdvisoryOption(command, 'go ahead', 'usage errors (1) and terraform failures (2)');
  return command.addHelpText(
    'after',
    `\nterraform plan flags go after --, e.g.\n  tfgate ${command.name()} --package payments -- -var-file=prod.tfvars -target=module.queue`,
  );
}

export function cliContext(): WrapperContext {
  const io = terminalIo();
  // Terraform writes to both streams: `tfgate plan 2>plan.log` on a terminal must not put ESC codes in the log.
  return { progress: createProgress(), ...io, terraformColor: io.color && useColor(process.stderr, io.env) };
}

export function registerPlan(program: Command): void {
  addWrapperOptions(
    program
      .command('plan')
      .description(
        'Run terraform plan and evaluate the plan against the approved design, without applying: exit 0 pass, 1 usage, 2 terraform failed, 3 blocked, 4 no decision.',
      ),
  )
    .option(
      '--out <planfile>',
      'keep the evaluated plan here for a later apply, only when nothing blocks (relative to the current directory, not --chdir); an earlier plan there is removed first, any other file is refused',
    )
    .action(async (terraformArgs: string[], flags: WrapperFlags & { out?: string }, command: Command) => {
      // Both at once: each is a few chunks to load before terraform can start.
      const [{ runPlan }, { normalisePlanOptions }] = await Promise.all([
        import('../../commands/plan.js'),
        import('../normalise/wrapper.js'),
      ]);
      const options = normalisePlanOptions(flags, terraformArgs, process.env);
      const result = await exitPromptlyIfInterrupted(runPlan(options, cliContext()));
      setExitCode(command, result.exitCode);
    });
}
