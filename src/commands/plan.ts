// `tfgate plan`: terraform plan into a private file → show -json streamed into the evaluator → reports; the
// plan is kept (--out) only when it may be applied. The session and the steps are in ./wrapper/.
import { rm } from 'node:fs/promises';
import { ExitCode } from '../errors/index.js';
import { copyFileAtomic } from '../fs/atomic-file.js';
import * as z from '../schemas/zod.js';
import { createPrivatePlanDir, type PrivatePlanDir } from '../terraform/index.js';
import type { WrapperContext, WrapperResult, WrapperStatus } from './wrapper/index.js';
import * as wrapper from './wrapper/index.js';

export type { ProgressReporter, WrapperContext, WrapperResult } from './wrapper/index.js';

export const planOptionsSchema = z.extend(wrapper.wrapperOptionsSchema, {
  /** Keep the evaluated plan here (written whole, only when it may be applied) for a later apply. */
  out: z.optional(z.string().check(z.minLength(1))),
});
export type PlanOptions = z.output<typeof planOptionsSchema>;

/** `tfgate plan [--out <file>]`: plan, evaluate, report; keep the plan only when it may be applied. */
export async function runPlan(options: PlanOptions, context: WrapperContext): Promise<WrapperResult> {
  // A stale plan at --out must not survive a failed or blocked run: someone might apply it.
  if (options.out !== undefined) await rm(options.out, { force: true });
  return wrapper.withSession(options, context, async (session) => {
    let planDir: PrivatePlanDir | undefined;
    try {
      planDir = await createPrivatePlanDir();
      const { outcome, evaluator } = await wrapper.planWhileLoading(session, context, planDir.planFile);
      if (outcome === 'no-changes') {
        context.progress.info(
          'No changes: the infrastructure matches the configuration. Nothing to evaluate.',
        );
        const kept = options.out === undefined ? undefined : await keepPlan(planDir.planFile, options.out);
        return { status: 'no-changes', exitCode: ExitCode.ok, ...(kept ? { planFile: kept } : {}) };
      }
      const evaluated = await wrapper.evaluateStep(
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

/** The kept plan is whole or absent, never half-written, and owner-only: it holds the configuration's secrets. */
async function keepPlan(from: string, to: string): Promise<string> {
  await copyFileAtomic(
    from,
    to,
    { code: 'plan_not_saved', what: 'the plan', hint: 'check that the directory exists and is writable' },
    0o600,
  );
  return to;
}
