// `tfgate check`: commander wiring only; src/commands/check.ts does the work.
import type { Command } from 'commander';
import { type CheckFlags, resolveCheckOptions, runCheck } from '../../commands/check.js';
import { collect } from '../../options/common.js';
import { setExitCode } from '../program.js';
import { useColor } from '../progress.js';

export function registerCheck(program: Command): void {
  program
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
      '--base-url <url>',
      'with --package: the tfgate service (env TFGATE_BASE_URL; key from TFGATE_API_KEY)',
    )
    .option('--ca-file <pem>', 'with --package: trust this CA for the service (or NODE_EXTRA_CA_CERTS)')
    .option('--bundle <bundle.tar.gz>', 'decide with this signed policy bundle, offline')
    .option('--public-key <pem>', 'platform public key that verifies the bundle (env TFGATE_PUBLIC_KEY)')
    .option(
      '--package <id>',
      'the service route: this package decides; with --bundle: refuse another package',
    )
    .option(
      '--allow-unsigned-bundle-INSECURE',
      'accept a bundle with no signature (INSECURE: for local experiments only; warned about every time)',
    )
    .option(
      '--min-severity <severity>',
      'block on findings at or above: low|medium|high|critical (default low; env TFGATE_MIN_SEVERITY)',
    )
    .option('--format <format>', 'report format: text|json|markdown|sarif|junit (repeatable)', collect)
    .option(
      '--output <file>',
      'write the report of the --format at the same position to this file (repeatable)',
      collect,
    )
    .option(
      '--advisory',
      'exit 0 on a block or when no decision can be reached, saying so loudly on stderr (env TFGATE_ADVISORY); usage errors (1) and terraform failures (2) still fail',
    )
    .action(async (flags: CheckFlags, command: Command) => {
      const options = resolveCheckOptions(flags, process.env);
      const outcome = await runCheck(options, {
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
        color: useColor(process.stdout, process.env),
      });
      setExitCode(command, outcome.exitCode);
    });
}
