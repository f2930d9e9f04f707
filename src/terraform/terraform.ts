// The three terraform calls tfgate makes, on one binary and one working directory.
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { PlanSource } from '../plan/index.js';
import {
  describeBinary,
  detectTerraform,
  guessProduct,
  namedTerragrunt,
  resolveTerraformCommand,
  type TerraformBinary,
} from './binary.js';
import { explainFailure, type TerraformStep } from './failures.js';
import { type RunContext, runLive } from './run.js';
import { showJsonSource, statePullSource } from './show.js';
import type { SignalGuard } from './signals.js';

export interface TerraformOptions {
  /** `--terraform-bin`; falls back to TFGATE_TERRAFORM_BIN, then `terraform`. */
  bin?: string | undefined;
  /** Already identified (skips `version`): reuse one detection for several Terraform instances. */
  binary?: TerraformBinary;
  chdir?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Where terraform's stdout goes (default: ours). */
  stdout?: 'stdout' | 'stderr';
  /** False adds -no-color (NO_COLOR, or no colour asked for). */
  color?: boolean;
  guard?: SignalGuard | undefined;
  /** Told each time a terraform step's process has been started (the wrapper starts loading the policy then). */
  onSpawn?: ((step: TerraformStep) => void) | undefined;
}

/** What `plan -detailed-exitcode` said: 0 no changes, 2 changes; 1 (errored) throws instead. */
export type PlanOutcome = 'changes' | 'no-changes';

export class Terraform {
  #context: RunContext;
  readonly #color: boolean;

  private constructor(context: RunContext, color: boolean) {
    this.#context = context;
    this.#color = color;
  }

  /** The binary: after launch(), a provisional identity (from its name) until `identified` settles. */
  get binary(): TerraformBinary {
    return this.#context.binary;
  }

  /**
   * Return at once, and identify the binary (`<bin> version`) once the first step's process has started, so
   * terraform plans while `identified` settles; the product is guessed from the name meanwhile. Spawning
   * `version` first delayed the plan by that spawn, ~4 ms.
   */
  static launch(options: TerraformOptions = {}): {
    terraform: Terraform;
    identified: Promise<TerraformBinary>;
  } {
    const env = options.env ?? process.env;
    const command = resolveTerraformCommand(options.bin, env);
    const provisional: TerraformBinary = {
      command,
      product: guessProduct(command) ?? 'terraform',
      version: 'unknown',
      ...(namedTerragrunt(command) ? { wrapper: { name: 'terragrunt' as const, version: 'unknown' } } : {}),
    };
    let identify = () => {};
    const started = new Promise<void>((resolve) => {
      identify = resolve;
    });
    const terraform = new Terraform(
      {
        binary: provisional,
        chdir: options.chdir,
        env,
        stdout: options.stdout ?? 'stdout',
        guard: options.guard,
        onSpawn: (step) => {
          identify();
          options.onSpawn?.(step);
        },
      },
      options.color ?? true,
    );
    // After the first step's spawn, or on the next turn of the event loop if no step starts by then.
    setImmediate(identify);
    const identified = started
      .then(() => detectTerraform(command, env))
      .then((binary) => {
        terraform.#context = { ...terraform.#context, binary };
        return binary;
      });
    return { terraform, identified };
  }

  /** Resolve and identify the binary (Terraform or OpenTofu) once. */
  static async open(options: TerraformOptions = {}): Promise<Terraform> {
    const env = options.env ?? process.env;
    const binary = options.binary ?? (await detectTerraform(resolveTerraformCommand(options.bin, env), env));
    return new Terraform(
      {
        binary,
        chdir: options.chdir,
        env,
        stdout: options.stdout ?? 'stdout',
        guard: options.guard,
        onSpawn: options.onSpawn,
      },
      options.color ?? true,
    );
  }

  get description(): string {
    return describeBinary(this.binary);
  }

  get chdir(): string | undefined {
    return this.#context.chdir;
  }

  /**
   * `plan -input=false -detailed-exitcode -out=<planFile>`. Any stale file at planFile is removed first, and
   * an errored plan (exit 1) throws even though terraform may have written the file: it is removed too.
   */
  async plan(planFile: string, passThrough: readonly string[]): Promise<PlanOutcome> {
    const out = absolute(planFile);
    // Synchronous: the plan starts without waiting for a thread-pool round trip.
    rmSync(out, { force: true });
    const outcome = await runLive(this.#context, 'plan', [
      'plan',
      '-input=false',
      '-detailed-exitcode',
      `-out=${out}`,
      ...this.#colorArgs(passThrough),
      ...passThrough,
    ]);
    if (outcome.exitCode === 0) return 'no-changes';
    if (outcome.exitCode === 2) return 'changes';
    await rm(out, { force: true });
    throw explainFailure({
      step: 'plan',
      command: this.binary.command,
      exitCode: outcome.exitCode,
      signal: undefined,
      stderr: outcome.stderr,
    });
  }

  /** A PlanSource streaming `show -json <planFile>`; each open() runs show again. */
  showJson(planFile: string): PlanSource {
    return showJsonSource(this.#context, absolute(planFile));
  }

  /** A source streaming `show -json` on the current state (what `tfgate state push` sends). */
  showStateJson(): PlanSource {
    return showJsonSource(this.#context);
  }

  /** A source streaming `state pull`: the raw state, or nothing when there is none (readPulledState). */
  statePull(): PlanSource {
    return statePullSource(this.#context);
  }

  /** `apply -input=false <planFile>`: exactly the saved plan that was evaluated. */
  async apply(planFile: string, passThrough: readonly string[]): Promise<void> {
    const outcome = await runLive(this.#context, 'apply', [
      'apply',
      '-input=false',
      ...this.#colorArgs(passThrough),
      ...passThrough,
      absolute(planFile),
    ]);
    if (outcome.exitCode !== 0) {
      throw explainFailure({
        step: 'apply',
        command: this.binary.command,
        exitCode: outcome.exitCode,
        signal: undefined,
        stderr: outcome.stderr,
      });
    }
  }

  #colorArgs(passThrough: readonly string[]): string[] {
    return !this.#color && !passThrough.includes('-no-color') ? ['-no-color'] : [];
  }
}

/** `-chdir` changes terraform's working directory, so tfgate's own paths are made absolute first. */
function absolute(path: string): string {
  return isAbsolute(path) ? path : resolve(path);
}
