// `tfgate check`: commander wiring only; src/commands/check.ts does the work (loaded in the action, so other
// commands, --help and --version start without the option schemas and the policy's modules).
import type { Command } from 'commander';
import { collect } from '../../options/collect.js';
import { setExitCode } from '../exit-code.js';
import { exitPromptlyIfInterrupted } from '../interrupt.js';
import { terminalIo } from '../io.js';
import type { CheckFlags } from '../normalise/check.js';
import { addAdvisoryOption, addMinSeverityOption, addReportOptions, addRouteOptions } from '../options.js';

export function registerCheck(program: Command): void {
  const check = program
    .command('check')
    .description(
      'Evaluate Terraform plans that already exist (no terraform run), one or many (a monorepo, a Terragrunt stack) under one verdict: exit 0 pass, 3 blocked (any plan), 4 no decision (any plan), 1 usage.',
    )
    .option(
      '--plan-json <file|dir|glob>',
      'the output of `terraform show -json <planfile>`; - reads stdin. Repeatable; a directory means every *.json under it, a glob its matches: each plan is judged and one combined decision is made',
      collect,
    )
    .option(
      '--plan-file <planfile|dir|glob>',
      'a saved plan (Atlantis $PLANFILE, Spacelift spacelift.plan), read through `terraform show -json`. Repeatable; a directory means every tfplan/*.tfplan under it',
      collect,
    )
    .option(
      '--plan-map <file>',
      'YAML or JSON: plans (files, directories, globs) each with its own package or bundle, root name and configuration (see the README, "Many plans, one verdict")',
    )
    .option(
      '--chdir <dir>',
      "with --plan-file: the terraform working directory (passed as -chdir); with several plan files, default: each plan file's directory",
    )
    .option('--terraform-bin <bin>', 'with --plan-file: terraform, tofu or a path (env TFGATE_TERRAFORM_BIN)')
    .option(
      '--config-dir <dir>',
      'the Terraform configuration the plan was made from: findings get the file and line that declare them (default: with --plan-file, --chdir or else the working directory; with --plan-json, none)',
    );
  addRouteOptions(check);
  addMinSeverityOption(check);
  addReportOptions(check, { located: true });
  addAdvisoryOption(check, 'exit 0', 'usage errors (1) and terraform failures (2)');
  check
    .option(
      '--custom-policy-check',
      'for Atlantis\'s custom_policy_check: a block exits 0 with the text report on stdout, starting "FAIL: N failures" (a policy failure on the pull request, which a policy owner can approve); no decision still exits 4',
    )
    .option(
      '--approved-findings <result.json>',
      "the JSON result (--format json) of an earlier check whose block the pipeline's policy owners approved (Atlantis: $POLICYCHECKFILE after approve_policies): its blocking findings no longer block, any other finding still does",
    );
  check.action(async (flags: CheckFlags, command: Command) => {
    const [{ runCheck }, { normaliseCheckInput }] = await Promise.all([
      import('../../commands/check.js'),
      import('../normalise/check.js'),
    ]);
    const options = normaliseCheckInput(flags, process.env);
    const outcome = await exitPromptlyIfInterrupted(runCheck(options, terminalIo()));
    setExitCode(command, outcome.exitCode);
  });
}
