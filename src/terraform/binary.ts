// Which terraform-compatible binary runs, and what it is: Terraform or OpenTofu, and its version; or Terragrunt,
// which runs one of them on a unit (its product and version are then the wrapped binary's).
import { basename } from 'node:path';
import { TerraformError, UsageError } from '../errors/index.js';
import { describeProcessFailure, type ProcessResult, spawnProcess } from './process.js';

export type TerraformProduct = 'terraform' | 'opentofu';

export interface TerraformBinary {
  /** What is spawned: a name looked up on PATH, or a path. */
  readonly command: string;
  readonly product: TerraformProduct;
  readonly version: string;
  /**
   * Set when the command is Terragrunt: it passes plan/show/apply through to terraform or tofu (product and
   * version above), takes `--working-dir` where terraform takes `-chdir`, and initialises the unit itself.
   */
  readonly wrapper?: { name: 'terragrunt'; version: string };
}

/** `--terraform-bin` wins over TFGATE_TERRAFORM_BIN; the default is `terraform` on PATH. */
export function resolveTerraformCommand(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const chosen = flag ?? env.TFGATE_TERRAFORM_BIN ?? 'terraform';
  if (chosen.trim() === '') {
    throw new UsageError('invalid_terraform_bin', 'the terraform binary is empty', {
      hint: 'pass --terraform-bin terraform|tofu|<path>, or unset TFGATE_TERRAFORM_BIN',
    });
  }
  return chosen;
}

/** Run a version command with its stdout kept. */
function versionOutput(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) {
  return spawnProcess(command, args, {
    env: { ...env, CHECKPOINT_DISABLE: '1' },
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: { stdout: true },
    timeoutMs,
  }).result;
}

/**
 * Run `<bin> version` and read the product from its first line ("Terraform v1.11.4" or "OpenTofu v1.9.0"):
 * `version -json` names the field `terraform_version` for both, so it cannot tell them apart.
 */
export async function detectTerraform(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TerraformBinary> {
  const result = await versionOutput(command, ['version'], env, 30_000);
  const terragrunt = TERRAGRUNT_LINE.exec(result.stdout ?? '');
  if (result.exitCode === 0 && terragrunt)
    return detectUnderTerragrunt(command, terragrunt[1] as string, env);
  if (result.spawnError) throw cannotRun(command, ['version'], result);
  if (result.exitCode === undefined) {
    throw new TerraformError(
      'terraform_not_found',
      `cannot run "${command}": ${describeProcessFailure(command, ['version'], result)}`,
      { hint: CANNOT_RUN_HINT },
    );
  }
  return parseVersionOutput(command, result.stdout ?? '');
}

const CANNOT_RUN_HINT =
  'install terraform or OpenTofu, or point --terraform-bin (or TFGATE_TERRAFORM_BIN) at the binary';

/**
 * The binary could not be started at all (not found, not executable): a set-up error (exit 1), as a file
 * named on the command line that does not exist is. terraform never ran, so it is not terraform's failure
 * (exit 2).
 */
export function cannotRun(command: string, args: readonly string[], result: ProcessResult): UsageError {
  const code = result.spawnError?.code;
  const why =
    code === 'ENOENT'
      ? command.includes('/')
        ? 'no such file'
        : 'not found on PATH'
      : code === 'EACCES'
        ? 'permission denied (not an executable file)'
        : describeProcessFailure(command, args, result);
  return new UsageError('terraform_not_found', `cannot run "${command}": ${why}`, {
    hint:
      code === 'EACCES'
        ? `make ${command} executable (chmod +x), or point --terraform-bin (or TFGATE_TERRAFORM_BIN) at terraform or tofu`
        : CANNOT_RUN_HINT,
    cause: result.spawnError,
  });
}

const VERSION_LINE = /^(Terraform|OpenTofu) v(\d+\.\d+\.\d+\S*)/m;
/** `terragrunt version` prints its own version; `terragrunt run -- version` the wrapped binary's. */
const TERRAGRUNT_LINE = /^terragrunt version v(\d+\.\d+\.\d+\S*)/m;

/** Terragrunt: which terraform or tofu it runs (TG_TF_PATH, else its default), by `run -- version`. */
async function detectUnderTerragrunt(
  command: string,
  version: string,
  env: NodeJS.ProcessEnv,
): Promise<TerraformBinary> {
  const args = ['run', '--', 'version'];
  // Longer: Terragrunt reads its configuration before it runs the wrapped binary.
  const result = await versionOutput(command, args, env, 60_000);
  if (result.exitCode !== 0) {
    throw new TerraformError(
      'terraform_not_found',
      `Terragrunt ${version} cannot run terraform or tofu: ${describeProcessFailure(command, args, result)}`,
      { hint: 'install terraform or OpenTofu, or point TG_TF_PATH at the binary Terragrunt should run' },
    );
  }
  return { ...parseVersionOutput(command, result.stdout ?? ''), wrapper: { name: 'terragrunt', version } };
}

/** True when the command's name says Terragrunt: the wrapper's provisional identity, before detection. */
export function namedTerragrunt(command: string): boolean {
  return basename(command).toLowerCase().startsWith('terragrunt');
}

export function parseVersionOutput(command: string, stdout: string): TerraformBinary {
  const match = VERSION_LINE.exec(stdout);
  if (!match) {
    throw new TerraformError(
      'terraform_unrecognized',
      `"${command} version" did not print "Terraform vX.Y.Z" or "OpenTofu vX.Y.Z"`,
      { hint: '--terraform-bin must be terraform, tofu, or a path to one of them' },
    );
  }
  return {
    command,
    product: match[1] === 'OpenTofu' ? 'opentofu' : 'terraform',
    version: match[2]!,
  };
}

/** The product a command's name suggests (`tofu…` or `terraform…`); undefined for any other name. */
export function guessProduct(command: string): TerraformProduct | undefined {
  const name = basename(command).toLowerCase();
  if (name.startsWith('tofu')) return 'opentofu';
  if (name.startsWith('terraform')) return 'terraform';
  return undefined;
}

/**
 * Whether a signal goes to the binary's whole process group: a wrapper (terragrunt, or any binary not named
 * terraform or tofu) passes none on to the terraform it runs.
 */
export function signalsGroup(binary: Pick<TerraformBinary, 'command' | 'wrapper'>): boolean {
  return binary.wrapper !== undefined || guessProduct(binary.command) === undefined;
}

/** "Terraform 1.11.4" / "OpenTofu 1.9.0", for progress lines and messages. */
export function describeBinary(binary: TerraformBinary): string {
  const product = `${binary.product === 'opentofu' ? 'OpenTofu' : 'Terraform'} ${binary.version}`;
  return binary.wrapper ? `Terragrunt ${binary.wrapper.version} (${product})` : product;
}
