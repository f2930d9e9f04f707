// `tfgate check`: commander wiring only; src/commands/check.ts does the work.
import type { Command } from 'commander';
import { runCheck } from '../../commands/check.js';
import { setExitCode } from '../exit-code.js';
import { terminalIo } from '../io.js';
import { type CheckFlags, normaliseCheckOptions } from '../normalise/check.js';
import { addAdvisoryOption, addMinSeverityOption, addReportOptions, addRouteOptions } from '../options.js';

export function registerCheck(program: Command): void {
  const check = program
    .command('check')
    .description(
      'Evaluate a Terraform plan that already exists (no terraform run): exit 0 pass, 3 blocked, 4 no decision, 1 usage.',
    )
    .option('--plan-json <file|->', 'the output of `terraform show -json <planfile>`; - reads stdin')
    .option(
      '--plan-file <planfile>',
      'a saved plan (Atlantis $PLANFILE, Spacelift spacelift.plan), read through `terraform show -json`',
    )
    .option('--chdir <dir>', 'with --plan-file: the terraform working directory (passed as -chdir)')
    .option('--terraform-bin <bin>', 'with --plan-file: terraform, tofu or a path (env TFGATE_TERRAFORM_BIN)')
    .option(
      '--config-dir <dir>',
      'the Terraform configuration the plan was made from: findings get the file and line that declare them (default with --plan-file: --chdir, else the working directory)',
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
    const options = normaliseCheckOptions(flags, process.env);
    const outcome = await runCheck(options, terminalIo());
    setExitCode(command, outcome.exitCode);
  });
}
