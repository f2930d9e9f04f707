// `tfgate apply`: plan → evaluate → report → apply the same saved plan, only when nothing blocks.
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ExitCode, UsageError } from '../errors/index.js';
import { shownPath } from '../errors/shown.js';
import type { PlanEvaluator } from '../model/evaluator.js';
import * as z from '../schemas/zod.js';
import { createPrivatePlanDir, type PrivatePlanDir, parsePassThrough } from '../terraform/index.js';
import {
  applyStep,
  type Evaluated,
  evaluateStep,
  planWhileLoading,
  type WrapperContext,
  type WrapperResult,
  withSession,
  wrapperOptionsSchema,
} from './wrapper/index.js';

export const applyOptionsSchema = z.extend(wrapperOptionsSchema, {
  /**
   * Apply this saved plan (e.g. Atlantis's $PLANFILE from `tfgate plan --out`) instead of planning: it is
   * evaluated again, then applied. tfgate never deletes it.
   */
  planFile: z.optional(z.string().check(z.minLength(1))),
});
export type ApplyOptions = z.output<typeof applyOptionsSchema>;

export async function runApply(options: ApplyOptions, context: WrapperContext): Promise<WrapperResult> {
  if (options.planFile !== undefined) {
    // Parsed as terraform reads them (-lock-timeout 5s is one flag and its value): only apply's own flags.
    const passThrough = parsePassThrough(options.terraformArgs, undefined);
    if (passThrough.plan.length !== passThrough.apply.length) {
      throw new UsageError('plan_args_with_plan_file', 'plan flags cannot change a saved plan', {
        hint: 'with --plan-file, pass only -chdir, -lock, -lock-timeout, -parallelism, -compact-warnings or -no-color after --',
      });
    }
    await access(options.planFile).catch((error: unknown) => {
      throw new UsageError('plan_file_missing', `cannot read the plan file ${shownPath(options.planFile!)}`, {
        hint: 'pass the file written by `tfgate plan --out` (Atlantis: $PLANFILE)',
        cause: error,
      });
    });
    // Where the plan was made, as `check` shows a plan file where it lies: applied from another directory,
    // terraform would use that directory's state (a local backend would start a new, empty one there).
    if (options.chdir === undefined && passThrough.chdir === undefined && options.cdktfStack === undefined) {
      options = {
        ...options,
        chdir: dirname(resolve(options.planFile)),
        planFile: resolve(options.planFile),
      };
    }
  }
  return withSession(options, context, async (session) => {
    let planDir: PrivatePlanDir | undefined;
    try {
      let planFile = options.planFile;
      let evaluator: PlanEvaluator;
      let noChanges = false;
      if (planFile === undefined) {
        planDir = await createPrivatePlanDir();
        planFile = planDir.planFile;
        const planned = await planWhileLoading(session, context, planFile);
        evaluator = planned.evaluator;
        noChanges = planned.outcome === 'no-changes';
      } else {
        evaluator = await session.ready;
      }
      // A plan without changes is evaluated too: its reports say so (a SARIF with no results closes the last
      // run's alerts), rather than keeping an earlier run's.
      const evaluated = await evaluateStep(
        session,
        evaluator,
        options,
        context,
        session.terraform.showJson(planFile),
      );
      if (!evaluated.proceed) {
        context.progress.info('Blocked: nothing was applied.');
        return withEvaluation({ status: 'blocked', exitCode: ExitCode.blocked }, evaluated);
      }
      if (noChanges) {
        context.progress.info('No changes: the infrastructure matches the configuration. Nothing to apply.');
        return withEvaluation({ status: 'no-changes', exitCode: evaluated.exitCode }, evaluated);
      }
      await applyStep(session, context, planFile);
      return withEvaluation({ status: 'applied', exitCode: ExitCode.ok }, evaluated);
    } finally {
      await planDir?.dispose();
    }
  });
}

function withEvaluation(result: WrapperResult, evaluated: Evaluated): WrapperResult {
  return evaluated.result ? { ...result, evaluation: evaluated.result } : result;
}
