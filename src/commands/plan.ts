// `tfgate plan`: terraform plan into a private file → show -json streamed into the evaluator → reports.
// `tfgate apply` (apply.ts) runs the same steps and then applies the saved plan when nothing blocks.
import { chmod, copyFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import {
  ExitCode,
  IncompletePlanError,
  isTfgateError,
  NoDecisionError,
  TerraformError,
  type TfgateError,
  UsageError,
} from '../errors/index.js';
import type { EvaluationResult } from '../model/index.js';
import { advisorySchema, minSeveritySchema, reportTargetsSchema } from '../options/common.js';
import type { PlanSource } from '../plan/index.js';
import {
  createPrivatePlanDir,
  guessProduct,
  type PassThroughArgs,
  type PlanOutcome,
  type PrivatePlanDir,
  parsePassThrough,
  resolveTerraformCommand,
  SignalGuard,
  Terraform,
} from '../terraform/index.js';
import { openEvaluator, routeSchema } from './check.js';
import type { PlanEvaluator } from './evaluator.js';
import { evaluatePlan, type PipelineOutcome } from './pipeline.js';

/** What commands report progress through; src/cli/progress.ts implements it (createProgress, silentProgress). */
export interface ProgressReporter {
  step<T>(label: string, run: () => Promise<T>, options?: { live?: boolean }): Promise<T>;
  info(message: string): void;
  warn(message: string): void;
  banner(message: string): void;
}

/** Options shared by `tfgate plan` and `tfgate apply`, after the CLI has merged flags and environment. */
export const wrapperOptionsSchema = z.object({
  /** Who decides: the same routes as `tfgate check`. */
  route: routeSchema,
  /** terraform | tofu | a path; undefined falls back to TFGATE_TERRAFORM_BIN, then terraform. */
  terraformBin: z.string().min(1).optional(),
  /** tfgate's --chdir; `-chdir=` among the pass-through arguments is the other way to say it. */
  chdir: z.string().min(1).optional(),
  /**
   * A synthesized CDKTF stack: terraform runs in its directory (`<cdktf.json output>/stacks/<name>`) and the
   * report shows construct paths beside addresses. Not with --chdir.
   */
  cdktfStack: z.string().min(1).optional(),
  /** Everything after `--`: terraform plan flags. */
  terraformArgs: z.array(z.string()).default([]),
  minSeverity: minSeveritySchema,
  /** Report findings and go ahead anyway, saying so loudly (also when no decision could be reached). */
  advisory: advisorySchema,
  reports: reportTargetsSchema,
});
type NormalizedWrapperOptions = z.output<typeof wrapperOptionsSchema>;

export const planOptionsSchema = wrapperOptionsSchema.extend({
  /** Keep the evaluated plan here (written whole, only when it may be applied) for a later apply. */
  out: z.string().min(1).optional(),
});
export type PlanOptions = z.input<typeof planOptionsSchema>;

/** Where output goes, and how progress is shown. */
export interface WrapperContext {
  progress: ProgressReporter;
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Colour for reports on stdout and for terraform (false adds -no-color). */
  color: boolean;
  /** Overrides opening options.route (library callers with an evaluator of their own). */
  openEvaluator?: () => Promise<PlanEvaluator>;
  /** Where cdktf.json is looked for with --cdktf-stack (default: the current directory). */
  cdktfProjectDir?: string;
}

export type WrapperStatus = 'no-changes' | 'passed' | 'blocked' | 'advisory' | 'applied';

export interface WrapperResult {
  status: WrapperStatus;
  exitCode: ExitCode;
  evaluation?: EvaluationResult;
  /** `tfgate plan --out`: where the plan was kept, when it was. */
  planFile?: string;
}

/** One run of the wrapper: terraform, its arguments, the signal guard, and the policy being loaded. */
export interface WrapperSession {
  terraform: Terraform;
  args: PassThroughArgs;
  guard: SignalGuard;
  /**
   * The evaluator, once the policy is loaded and terraform identified. Both happen while terraform plans
   * (they cost time a plan does not wait for); if either fails, the running terraform is interrupted.
   */
  ready: Promise<PlanEvaluator>;
  /** With --cdktf-stack: plan address -> construct path, for the reports. */
  constructPaths?: (addresses: Iterable<string>) => ReadonlyMap<string, string>;
}

/** Install the signal guard, start terraform's identification and the policy's loading; dispose on exit. */
export async function withSession<T>(
  options: NormalizedWrapperOptions,
  context: WrapperContext,
  run: (session: WrapperSession) => Promise<T>,
): Promise<T> {
  const guard = SignalGuard.install();
  let evaluator: PlanEvaluator | undefined;
  let ready: Promise<PlanEvaluator> | undefined;
  try {
    const command = resolveTerraformCommand(options.terraformBin, context.env);
    const args = parsePassThrough(options.terraformArgs, guessProduct(command));
    if (options.chdir !== undefined && args.chdir !== undefined && options.chdir !== args.chdir) {
      throw new UsageError(
        'conflicting_chdir',
        `--chdir ${options.chdir} and -chdir=${args.chdir} disagree`,
        {
          hint: 'give the directory once, as --chdir <dir> or as -chdir=<dir> after --',
        },
      );
    }
    const cdktf = await resolveCdktfTarget(options, args.chdir, context);
    const machineReportOnStdout = options.reports.some(
      (r) => r.path === undefined && r.format !== 'text' && r.format !== 'markdown',
    );
    const { terraform, identified } = Terraform.launch({
      bin: command,
      chdir: cdktf?.workingDirectory ?? options.chdir ?? args.chdir,
      env: context.env,
      // A JSON/SARIF/JUnit report on stdout must stay parseable: terraform's output moves to stderr.
      stdout: machineReportOnStdout ? 'stderr' : 'stdout',
      color: context.color,
      guard,
    });
    const open =
      context.openEvaluator ??
      (() =>
        openEvaluator(options.route, {
          stderr: { write: (m: string) => context.progress.warn(m.trim()) },
          env: context.env,
        }));
    // `live`: terraform may be writing to the terminal meanwhile, so no spinner.
    const loading = context.progress.step('Load policy', open, { live: true }).then((loaded) => {
      evaluator = loaded;
      return loaded;
    });
    ready = Promise.all([identified, loading]).then(([, loaded]) => {
      context.progress.info(`${terraform.description}; deciding with ${loaded.description}`);
      return loaded;
    });
    // Fail closed and fast: a bad bundle, key or binary stops whatever terraform already started.
    ready.catch(() => guard.forward('SIGINT'));
    return await run({
      terraform,
      args,
      guard,
      ready,
      ...(cdktf ? { constructPaths: (addresses) => cdktf.constructPaths(addresses) } : {}),
    });
  } finally {
    guard.dispose();
    await ready?.catch(() => undefined);
    const closing = evaluator?.close?.();
    // After a signal, a close that waits for an abandoned request (a hung service) must not hold tfgate.
    if (guard.received === undefined) await closing;
    else closing?.catch(() => {});
  }
}

/** `--cdktf-stack <name>`: the synthesized stack (a usage error if it was not synthesized, or with --chdir). */
async function resolveCdktfTarget(
  options: NormalizedWrapperOptions,
  passThroughChdir: string | undefined,
  context: WrapperContext,
) {
  if (options.cdktfStack === undefined) return undefined;
  const chdir =
    options.chdir !== undefined
      ? `--chdir ${options.chdir}`
      : passThroughChdir && `-chdir=${passThroughChdir}`;
  if (chdir) {
    throw new UsageError(
      'conflicting_chdir',
      `--cdktf-stack ${options.cdktfStack} and ${chdir} both say where terraform runs: give one`,
      {
        hint: `--cdktf-stack runs terraform in the synthesized stack's directory (cdktf.out/stacks/${options.cdktfStack}); drop ${chdir}, or drop --cdktf-stack to plan another directory`,
      },
    );
  }
  // Loaded on demand: only CDKTF projects need it.
  const { resolveCdktfStack } = await import('../cdktf/construct-paths.js');
  return resolveCdktfStack(options.cdktfStack, { projectDir: context.cdktfProjectDir });
}

/**
 * Plan while the policy loads; then wait for it. A loading failure wins over the plan's own result: it is
 * why the plan was interrupted.
 */
export async function planWhileLoading(
  session: WrapperSession,
  context: WrapperContext,
  planFile: string,
): Promise<{ outcome: PlanOutcome; evaluator: PlanEvaluator }> {
  const planned = await planStep(session, context, planFile).then(
    (outcome) => ({ ok: true as const, outcome }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const evaluator = await session.ready;
  if (!planned.ok) throw planned.error;
  return { outcome: planned.outcome, evaluator };
}

/** Once a signal arrived, nothing further may run: throw the "interrupted" error. */
export function throwIfInterrupted(guard: SignalGuard, during: string, cause?: unknown): void {
  if (guard.received === undefined) return;
  throw new TerraformError('interrupted', `interrupted by ${guard.received} during ${during}`, {
    hint:
      during === 'terraform apply'
        ? 'terraform stopped and released its lock; the apply may be partial: run `terraform plan` to see what remains'
        : 'terraform stopped and released its lock; nothing was applied',
    ...(cause === undefined ? {} : { cause }),
  });
}

/** `terraform plan -detailed-exitcode` into `planFile`; an interrupt or an errored plan throws. */
export async function planStep(session: WrapperSession, context: WrapperContext, planFile: string) {
  throwIfInterrupted(session.guard, 'start-up');
  try {
    const outcome = await context.progress.step(
      `${session.terraform.binary.command} plan`,
      () => session.terraform.plan(planFile, session.args.plan),
      { live: true },
    );
    throwIfInterrupted(session.guard, 'terraform plan');
    return outcome;
  } catch (error) {
    throwIfInterrupted(session.guard, 'terraform plan', error);
    throw error;
  }
}

export interface Evaluated {
  result: EvaluationResult | undefined;
  /** True when terraform may go ahead: a pass, or advisory mode (whatever the decision). */
  proceed: boolean;
  exitCode: ExitCode;
}

/**
 * Stream the saved plan through the shared pipeline (as `tfgate check` does): evaluate, print the reports,
 * decide. Fail closed: an error here means no decision (exit 4), unless --advisory asked to go ahead anyway.
 */
export async function evaluateStep(
  session: WrapperSession,
  evaluator: PlanEvaluator,
  options: NormalizedWrapperOptions,
  context: WrapperContext,
  source: PlanSource,
): Promise<Evaluated> {
  let outcome: PipelineOutcome;
  // No terraform state changes during evaluation, so a signal ends it at once, even a service that hangs.
  let stopWaiting = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    stopWaiting = session.guard.onSignal(() => reject(new Error('interrupted')));
  });
  try {
    outcome = await context.progress.step(`Evaluate plan (${evaluator.description})`, () =>
      raceInterrupt(
        evaluatePlan({
          source,
          evaluator,
          minSeverity: options.minSeverity,
          reports: options.reports,
          advisory: options.advisory,
          stdout: context.stdout,
          // The pipeline's advisory notice becomes the wrapper's loud banner: here it means "going ahead".
          stderr: {
            write: (m: string) => context.progress.banner(`${m.trim()}; terraform goes ahead anyway`),
          },
          color: context.color,
          env: context.env,
          ...(session.constructPaths ? { constructPaths: session.constructPaths } : {}),
        }),
        interrupted,
      ),
    );
  } catch (error) {
    throwIfInterrupted(session.guard, 'evaluation', error);
    const failure = asNoDecision(error);
    // Advisory mode goes ahead without a decision, never past a terraform failure (exit 2).
    if (!options.advisory || failure instanceof TerraformError) throw failure;
    context.progress.banner(
      `ADVISORY MODE: no decision could be reached (${failure.message}); terraform goes ahead anyway because --advisory was given`,
    );
    return { result: undefined, proceed: true, exitCode: ExitCode.ok };
  } finally {
    stopWaiting();
  }
  throwIfInterrupted(session.guard, 'evaluation');
  return { result: outcome.result, proceed: outcome.exitCode === ExitCode.ok, exitCode: outcome.exitCode };
}

/** The work, unless a signal comes first; the abandoned work's later failure is then of no interest. */
function raceInterrupt<T>(work: Promise<T>, interrupted: Promise<never>): Promise<T> {
  work.catch(() => {});
  interrupted.catch(() => {});
  return Promise.race([work, interrupted]);
}

/** Terraform's failure stays a terraform failure (exit 2); anything else in evaluation means no decision (4). */
function asNoDecision(error: unknown): TfgateError {
  // Terraform saved the plan although planning failed: terraform's failure (exit 2), as its apply would say.
  if (error instanceof IncompletePlanError) {
    return new TerraformError('incomplete_plan', error.message, {
      ...(error.hint ? { hint: error.hint } : {}),
      cause: error,
    });
  }
  if (isTfgateError(error) && (error.exitCode === ExitCode.noDecision || error instanceof TerraformError)) {
    return error;
  }
  const fallback =
    'nothing was applied; fix the cause and run again, or pass --advisory to go ahead without a decision';
  if (isTfgateError(error)) {
    // Keep what the route said (e.g. the service refused the key) and how to fix it; only the exit code changes.
    return new NoDecisionError(error.code, error.message, {
      hint: error.hint ? `${error.hint}. Nothing was applied.` : fallback,
      cause: error,
      ...(error.details ? { details: error.details } : {}),
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new NoDecisionError('evaluation_failed', `the plan could not be evaluated: ${message}`, {
    hint: fallback,
    cause: error,
  });
}

/** `tfgate plan [--out <file>]`: plan, evaluate, report; keep the plan only when it may be applied. */
export async function runPlan(input: PlanOptions, context: WrapperContext): Promise<WrapperResult> {
  const options = planOptionsSchema.parse(input);
  // A stale plan at --out must not survive a failed or blocked run: someone might apply it.
  if (options.out !== undefined) await rm(options.out, { force: true });
  return withSession(options, context, async (session) => {
    let planDir: PrivatePlanDir | undefined;
    try {
      planDir = await createPrivatePlanDir();
      const { outcome, evaluator } = await planWhileLoading(session, context, planDir.planFile);
      if (outcome === 'no-changes') {
        context.progress.info(
          'No changes: the infrastructure matches the configuration. Nothing to evaluate.',
        );
        const kept = options.out === undefined ? undefined : await keepPlan(planDir.planFile, options.out);
        return { status: 'no-changes', exitCode: ExitCode.ok, ...(kept ? { planFile: kept } : {}) };
      }
      const evaluated = await evaluateStep(
        session,
        evaluator,
        options,
        context,
        session.terraform.showJson(planDir.planFile),
      );
      const status: WrapperStatus = !evaluated.proceed
        ? 'blocked'
        : evaluated.result?.decision === 'pass'
          ? 'passed'
          : 'advisory';
      let planFile: string | undefined;
      if (evaluated.proceed && options.out !== undefined) {
        planFile = await keepPlan(planDir.planFile, options.out);
        context.progress.info(`Saved the evaluated plan to ${planFile}`);
      } else if (!evaluated.proceed) {
        context.progress.info('Blocked: the plan was not kept.');
      }
      return {
        status,
        exitCode: evaluated.exitCode,
        ...(evaluated.result ? { evaluation: evaluated.result } : {}),
        ...(planFile ? { planFile } : {}),
      };
    } finally {
      await planDir?.dispose();
    }
  });
}

/** Copy beside the target, then rename: the kept plan is whole or absent, never half-written. */
async function keepPlan(from: string, to: string): Promise<string> {
  const temp = join(dirname(to), `.${basename(to)}.${process.pid}.tmp`);
  try {
    await copyFile(from, temp);
    // A saved plan holds the configuration's secrets in clear text: readable by its owner only.
    await chmod(temp, 0o600);
    await rename(temp, to);
    return to;
  } catch (error) {
    await rm(temp, { force: true });
    throw new UsageError('plan_not_saved', `could not save the plan to ${to}: ${(error as Error).message}`, {
      hint: 'check that the directory exists and is writable',
      cause: error,
    });
  }
}
