// The wrapper's steps, each on its own: plan (while the policy loads), evaluate, apply. A signal during terraform
// plan or apply ends the run with terraform's "interrupted" error (exit 2); one at any other time (start-up,
// evaluation, between steps) ends it as the signal ends `check` (InterruptedError: nothing was applied).
// Evaluation failures mean no decision (exit 4).
import {
  ADVISORY_CONSEQUENCE,
  advisoryNotice,
  ExitCode,
  errorMessage,
  IncompletePlanError,
  InterruptedError,
  isTfgateError,
  NoDecisionError,
  TerraformError,
  type TfgateError,
} from '../../errors/index.js';
import type { PlanEvaluator, PlanSource } from '../../model/evaluator.js';
import type { EvaluationResult } from '../../model/index.js';
import type { PlanOutcome, SignalGuard } from '../../terraform/index.js';
import { evaluatePlan, type PipelineOutcome } from '../pipeline.js';
import type { WrapperContext, WrapperOptions } from './options.js';
import type { WrapperSession } from './session.js';

/**
 * Plan while the policy loads; then wait for it. A loading failure wins over the plan's own result: it is
 * why the plan was interrupted. A plan that failed before terraform started loaded nothing: its error stands.
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
  if (!planned.ok && !session.loading) throw planned.error;
  const evaluator = await session.ready;
  if (!planned.ok) throw planned.error;
  return { outcome: planned.outcome, evaluator };
}

/** Where a signal can arrive: a terraform step (terraform got it and stopped), or tfgate's own work. */
export type InterruptedDuring = 'start-up' | 'terraform plan' | 'evaluation' | 'terraform apply';

/**
 * Once a signal arrived, nothing further may run: throw. During terraform plan or apply terraform got the
 * signal and stopped (releasing its lock): terraform's "interrupted" error, exit 2. At any other time no
 * terraform step ran and nothing was applied: an InterruptedError, which ends tfgate as the signal ends
 * `check` and `gate` (130 for SIGINT), never as a terraform failure.
 */
export function throwIfInterrupted(guard: SignalGuard, during: InterruptedDuring, cause?: unknown): void {
  const signal = guard.received;
  if (signal === undefined) return;
  const causing = cause === undefined ? {} : { cause };
  if (during !== 'terraform plan' && during !== 'terraform apply') {
    throw new InterruptedError(
      signal,
      `interrupted by ${signal} during ${during}: nothing was applied`,
      causing,
    );
  }
  throw new TerraformError('interrupted', `interrupted by ${signal} during ${during}`, {
    hint:
      during === 'terraform apply'
        ? 'terraform stopped, releasing the state lock; the apply may be partial: run `terraform plan` to see what remains'
        : 'terraform stopped (and released the state lock, if it had taken it); nothing was applied',
    ...causing,
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
  options: WrapperOptions,
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
    // `live`: the reports go to stdout meanwhile, which a spinner on the terminal would be drawn over.
    outcome = await context.progress.step(
      `Evaluate plan (${evaluator.description})`,
      () =>
        raceInterrupt(
          evaluatePlan({
            source,
            evaluator,
            minSeverity: options.minSeverity,
            reports: options.reports,
            advisory: options.advisory,
            advisoryGivenAs: options.advisoryGivenAs,
            advisoryConsequence: ADVISORY_CONSEQUENCE.terraformProceeds,
            stdout: context.stdout,
            // The pipeline's advisory notice becomes the wrapper's loud banner.
            stderr: { write: (m: string) => context.progress.banner(m.trim()) },
            annotations: context.stderr,
            color: context.color,
            env: context.env,
            ...(session.constructPaths ? { constructPaths: session.constructPaths } : {}),
            locate: session.locate,
          }),
          interrupted,
        ),
      { live: true },
    );
  } catch (error) {
    throwIfInterrupted(session.guard, 'evaluation', error);
    const failure = asNoDecision(error);
    // Advisory mode goes ahead without a decision, never past a terraform failure (exit 2).
    if (!options.advisory || failure instanceof TerraformError) throw failure;
    await session.reportNoDecision(failure, true);
    context.progress.banner(
      advisoryNotice(
        { kind: 'no-decision', reason: failure.message },
        ADVISORY_CONSEQUENCE.terraformProceeds,
        options.advisoryGivenAs,
      ),
    );
    return { result: undefined, proceed: true, exitCode: ExitCode.ok };
  } finally {
    stopWaiting();
  }
  session.decided();
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
  const message = errorMessage(error);
  return new NoDecisionError('evaluation_failed', `the plan could not be evaluated: ${message}`, {
    hint: fallback,
    cause: error,
  });
}

/** `terraform apply` of the saved, evaluated plan; a signal first, or during it, throws "interrupted". */
export async function applyStep(
  session: WrapperSession,
  context: WrapperContext,
  planFile: string,
): Promise<void> {
  throwIfInterrupted(session.guard, 'evaluation');
  try {
    await context.progress.step(
      `${session.terraform.binary.command} apply`,
      () => session.terraform.apply(planFile, session.args.apply),
      { live: true },
    );
  } catch (error) {
    throwIfInterrupted(session.guard, 'terraform apply', error);
    throw error;
  }
}
