// Helpers for tests that run the real terraform: a private copy of a configuration, an environment
// that never prompts, phones home or reads ~/.terraformrc, and the init/plan/apply/show steps.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { execa } from 'execa';

export const TERRAFORM_BIN = process.env.TFGATE_TERRAFORM_BIN ?? 'terraform';

/** OpenTofu, as scripts/setup-tools.sh installs it (.tools/bin is on PATH in tests: test/global-setup.ts). */
export const TOFU_BIN = 'tofu';

/** Repository root, for fixture and example paths. */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** Where the corpus configurations live: test/fixtures/terraform/<scenario>/{config,before}. */
export const SCENARIOS_DIR = join(REPO_ROOT, 'test', 'fixtures', 'terraform');

/** Leftovers of a run that must not be copied into a fresh workspace. */
const NOT_COPIED = new Set([
  '.terraform',
  '.terraform.lock.hcl',
  'terraform.tfstate',
  'terraform.tfstate.backup',
]);

export interface TerraformResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Resolve with the result instead of throwing when terraform exits non-zero. */
  allowFailure?: boolean;
  /** Extra environment (e.g. TF_VAR_x), on top of the workspace's. */
  env?: Record<string, string>;
}

/**
 * The environment for terraform in tests: no prompts (TF_INPUT=0, TF_IN_AUTOMATION=1), no update check
 * (CHECKPOINT_DISABLE=1), and an empty CLI config so ~/.terraformrc is neither read nor warned about.
 */
export function terraformEnv(cliConfigFile: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    CHECKPOINT_DISABLE: '1',
    TF_CLI_CONFIG_FILE: cliConfigFile,
    ...extra,
  };
}

export interface WorkspaceOptions {
  /** The binary run() uses: terraform (default, or TFGATE_TERRAFORM_BIN) or tofu (TOFU_BIN) or a path. */
  bin?: string;
}

export class TerraformWorkspace {
  /** The working directory terraform runs in (a copy of the source configuration). */
  readonly dir: string;
  /** Environment to give any other process that runs terraform here (e.g. `tfgate apply`). */
  readonly env: NodeJS.ProcessEnv;
  /** What run() spawns. */
  readonly bin: string;
  private readonly base: string;

  private constructor(base: string, dir: string, bin: string) {
    this.base = base;
    this.dir = dir;
    this.bin = bin;
    const cliConfig = join(base, 'empty.tfrc');
    writeFileSync(cliConfig, '');
    this.env = terraformEnv(cliConfig);
  }

  /** A fresh temporary workspace holding a copy of `sourceDir` (a fixture or an example). */
  static create(sourceDir: string, options: WorkspaceOptions = {}): TerraformWorkspace {
    if (!existsSync(sourceDir)) throw new Error(`terraform configuration not found: ${sourceDir}`);
    const base = mkdtempSync(join(tmpdir(), `tfgate-tf-${basename(sourceDir)}-`));
    const workspace = new TerraformWorkspace(base, join(base, 'work'), options.bin ?? TERRAFORM_BIN);
    cpSync(sourceDir, workspace.dir, { recursive: true, filter: (src) => !NOT_COPIED.has(basename(src)) });
    return workspace;
  }

  /** A workspace for a corpus scenario's configuration: `config` (planned) or `before` (applied first). */
  static forScenario(
    scenario: string,
    config: 'config' | 'before' = 'config',
    options: WorkspaceOptions = {},
  ): TerraformWorkspace {
    return TerraformWorkspace.create(join(SCENARIOS_DIR, scenario, config), options);
  }

  /** Swap the configuration for another directory's, keeping state (e.g. `before` → `config`). */
  replaceConfig(sourceDir: string): void {
    for (const entry of readdirSync(this.dir)) {
      if (!NOT_COPIED.has(entry)) rmSync(join(this.dir, entry), { recursive: true, force: true });
    }
    cpSync(sourceDir, this.dir, { recursive: true, filter: (src) => !NOT_COPIED.has(basename(src)) });
  }

  /** Run terraform with `args` in the workspace. Throws with terraform's output on a non-zero exit. */
  async run(args: string[], options: RunOptions = {}): Promise<TerraformResult> {
    const result = await execa(this.bin, args, {
      cwd: this.dir,
      env: { ...this.env, ...options.env },
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      maxBuffer: 1024 * 1024 * 1024,
    });
    const outcome = { exitCode: result.exitCode ?? 1, stdout: result.stdout, stderr: result.stderr };
    if (outcome.exitCode !== 0 && !options.allowFailure) {
      throw new Error(
        `${this.bin} ${args.join(' ')} exited ${outcome.exitCode} in ${this.dir}:\n${outcome.stderr}${outcome.stdout}`,
      );
    }
    return outcome;
  }

  init(options?: RunOptions): Promise<TerraformResult> {
    return this.run(['init', '-input=false', '-no-color'], options);
  }

  /** `terraform plan -out=<planFile>`; returns the plan file's path. */
  async plan(args: string[] = [], planFile = 'tfplan', options?: RunOptions): Promise<string> {
    await this.run(['plan', '-input=false', '-no-color', `-out=${planFile}`, ...args], options);
    return join(this.dir, planFile);
  }

  /** `terraform apply -auto-approve` on the configuration (args may add -var, -replace, ...). */
  apply(args: string[] = [], options?: RunOptions): Promise<TerraformResult> {
    return this.run(['apply', '-auto-approve', '-input=false', '-no-color', ...args], options);
  }

  /** `terraform apply` on a saved plan file. */
  applyPlan(planFile = 'tfplan', options?: RunOptions): Promise<TerraformResult> {
    return this.run(['apply', '-input=false', '-no-color', planFile], options);
  }

  /** `terraform show -json <planFile>`: the plan JSON text, exactly as terraform printed it. */
  async showPlanJson(planFile = 'tfplan'): Promise<string> {
    return (await this.run(['show', '-json', '-no-color', planFile])).stdout;
  }

  /** `terraform show -json` on the current state (what `tfgate state push` sends). */
  async showStateJson(): Promise<string> {
    return (await this.run(['show', '-json', '-no-color'])).stdout;
  }

  /** The raw terraform.tfstate, or undefined before the first apply. */
  readState(): TfState | undefined {
    const path = join(this.dir, 'terraform.tfstate');
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as TfState) : undefined;
  }

  /** Addresses of the managed resource instances in state, e.g. `module.a.terraform_data.x[0]`. */
  stateAddresses(): string[] {
    const state = this.readState();
    if (!state) return [];
    return state.resources
      .filter((r) => r.mode === 'managed')
      .flatMap((r) =>
        r.instances.map((i) => {
          const key =
            i.index_key === undefined
              ? ''
              : typeof i.index_key === 'number'
                ? `[${i.index_key}]`
                : `[${JSON.stringify(i.index_key)}]`;
          return `${r.module ? `${r.module}.` : ''}${r.type}.${r.name}${key}`;
        }),
      )
      .sort();
  }

  /** Remove the workspace (idempotent). */
  cleanup(): void {
    rmSync(this.base, { recursive: true, force: true });
  }
}

/** The parts of terraform.tfstate (format version 4) tests look at. */
export interface TfState {
  version: number;
  /** The version of the binary that wrote it (OpenTofu writes its own). */
  terraform_version: string;
  serial: number;
  lineage: string;
  outputs: Record<string, { value: unknown; type: unknown; sensitive?: boolean }>;
  resources: Array<{
    module?: string;
    mode: 'managed' | 'data';
    type: string;
    name: string;
    provider: string;
    instances: Array<{
      index_key?: string | number;
      status?: string;
      deposed?: string;
      attributes: Record<string, unknown>;
    }>;
  }>;
}

/** Run `fn` with a fresh workspace copied from `sourceDir`, always cleaning up. */
export async function withWorkspace<T>(
  sourceDir: string,
  fn: (workspace: TerraformWorkspace) => Promise<T>,
): Promise<T> {
  const workspace = TerraformWorkspace.create(sourceDir);
  try {
    return await fn(workspace);
  } finally {
    workspace.cleanup();
  }
}

/**
 * Fail (never skip) when OpenTofu does not run here: CI installs it, so a missing tofu is a broken set-up,
 * and the message says how to fix it. Returns `tofu version`'s first line.
 */
export async function requireTofu(): Promise<string> {
  const result = await execa(TOFU_BIN, ['version'], {
    reject: false,
    env: { CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' },
  });
  if (result.exitCode !== 0 || !String(result.stdout).startsWith('OpenTofu v')) {
    throw new Error(
      `OpenTofu (tofu) does not run here (${result.shortMessage ?? `exit ${result.exitCode}`}): run scripts/setup-tools.sh tofu, which builds it and links it into .tools/bin (CI runs it)`,
    );
  }
  return String(result.stdout).split('\n')[0]!;
}

/** True when a terraform binary runs here (tests that need one can skip with a reason otherwise). */
export async function terraformAvailable(): Promise<boolean> {
  try {
    const result = await execa(TERRAFORM_BIN, ['version'], {
      reject: false,
      env: { CHECKPOINT_DISABLE: '1' },
    });
    return result.exitCode === 0;
  } catch {
    return false;
  }
}

/** Resolves once `child` (run with execa's `all`) has printed `text`; rejects, with what it printed, after `timeoutMs`. */
export function printed(
  child: { all?: NodeJS.ReadableStream | null | undefined },
  text: string,
  timeoutMs = 45_000,
): Promise<void> {
  let output = '';
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`never saw "${text}":\n${output}`)), timeoutMs);
    child.all?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}
