// Spawn terraform with its output live: stdout to ours (or our stderr), stderr to ours with a tail kept.
import { cannotRun, signalsGroup, type TerraformBinary } from './binary.js';
import { explainFailure, type TerraformStep } from './failures.js';
import { spawnProcess } from './process.js';
import type { Killable, SignalGuard } from './signals.js';

/** Enough of stderr to find terraform's "Error:" block; everything was already shown live. */
const STDERR_TAIL_BYTES = 64 * 1024;

export interface RunContext {
  binary: TerraformBinary;
  /** Passed as `-chdir=<dir>` (Terragrunt: `--working-dir=<dir>`) before the subcommand. */
  chdir: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Where terraform's stdout goes: ours, or our stderr when ours carries a machine-readable report. */
  stdout: 'stdout' | 'stderr';
  guard: SignalGuard | undefined;
  onSpawn?: ((step: TerraformStep) => void) | undefined;
}

/**
 * Forward tfgate's signals to a terraform process it spawned, until the returned function untracks it: to
 * its whole process group for a wrapper (signalsGroup), to the process alone for terraform and tofu.
 */
export function trackSignals(context: Pick<RunContext, 'binary' | 'guard'>, child: Killable): () => void {
  return context.guard?.track(child, { group: signalsGroup(context.binary) }) ?? (() => {});
}

export interface RunOutcome {
  exitCode: number;
  stderr: string;
}

export function globalArgs(context: Pick<RunContext, 'binary' | 'chdir'>): string[] {
  if (context.chdir === undefined) return [];
  // Terragrunt has no -chdir: its --working-dir is the unit to run in.
  return [context.binary.wrapper ? `--working-dir=${context.chdir}` : `-chdir=${context.chdir}`];
}

export function terraformEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // TF_IN_AUTOMATION drops "now run terraform apply" advice that is wrong under a wrapper.
  return { TF_IN_AUTOMATION: '1', ...env };
}

/**
 * Run one terraform subcommand to completion with its output live. Terraform is detached into its own
 * process group (see SignalGuard); signals reach it through the guard. Resolves with the exit code;
 * a spawn failure or a death by signal throws a TerraformError.
 */
export async function runLive(context: RunContext, step: TerraformStep, args: string[]): Promise<RunOutcome> {
  const fullArgs = [...globalArgs(context), ...args];
  const { child, result: settled } = spawnProcess(context.binary.command, fullArgs, {
    env: terraformEnv(context.env),
    stdout: context.stdout === 'stdout' ? 'inherit' : 2,
    stderr: 'pipe',
    detached: true,
  });
  const untrack = trackSignals(context, child);
  context.onSpawn?.(step);
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  });
  try {
    const result = await settled;
    if (result.spawnError) throw cannotRun(context.binary.command, fullArgs, result);
    if (result.exitCode === undefined || result.signal !== undefined) {
      throw explainFailure({
        step,
        command: context.binary.command,
        exitCode: result.exitCode,
        signal: result.signal,
        stderr: tail,
      });
    }
    return { exitCode: result.exitCode, stderr: tail };
  } finally {
    untrack();
  }
}
