// `tfgate plan`: terraform plan into a private file → show -json streamed into the evaluator → reports; the
// plan is kept (--out) only when it may be applied. The session and the steps are in ./wrapper/.
import { lstat, rm } from 'node:fs/promises';
import { UsageError } from '../errors/index.js';
import { copyFileAtomic } from '../fs/atomic-file.js';
import * as z from '../schemas/zod.js';
import { createPrivatePlanDir, type PrivatePlanDir, savedPlanKind } from '../terraform/index.js';
import type { SessionSetup, WrapperContext, WrapperResult, WrapperStatus } from './wrapper/index.js';
import * as wrapper from './wrapper/index.js';

export type { ProgressReporter, WrapperContext, WrapperResult } from './wrapper/index.js';

export const planOptionsSchema = z.extend(wrapper.wrapperOptionsSchema, {
  /** Keep the evaluated plan here (written whole, only when it may be applied) for a later apply. */
  out: z.optional(z.string().check(z.minLength(1))),
});
export type PlanOptions = z.output<typeof planOptionsSchema>;

/** `tfgate plan [--out <file>]`: plan, evaluate, report; keep the plan only when it may be applied. */
export async function runPlan(options: PlanOptions, context: WrapperContext): Promise<WrapperResult> {
  return wrapper.withSession(
    options,
    context,
    async (session) => {
      let planDir: PrivatePlanDir | undefined;
      try {
        planDir = await createPrivatePlanDir();
        const { outcome, evaluator } = await wrapper.planWhileLoading(session, context, planDir.planFile);
        // A plan without changes is evaluated too: its reports say so, rather than keeping an earlier run's.
        const evaluated = await wrapper.evaluateStep(
          session,
          evaluator,
          options,
          context,
          session.terraform.showJson(planDir.planFile),
        );
        const status: WrapperStatus = !evaluated.proceed
          ? 'blocked'
          : evaluated.result?.decision !== 'pass'
            ? 'advisory'
            : outcome === 'no-changes'
              ? 'no-changes'
              : 'passed';
        if (outcome === 'no-changes' && evaluated.proceed) {
          context.progress.info('No changes: the infrastructure matches the configuration.');
        }
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
    },
    outSetup(options.out),
  );
}

/**
 * --out is checked with the reports (its directory exists, it is not a directory). Then, once everything is
 * checked and before terraform starts, an earlier plan there is removed: a stale plan must not survive a failed
 * or blocked run, or someone might apply it. Only a plan: any other file there is the user's, and refused.
 */
function outSetup(out: string | undefined): SessionSetup {
  if (out === undefined) return {};
  return {
    outputs: [{ what: 'the plan (--out)', path: out, example: 'tfgate.tfplan' }],
    beforeTerraform: () => removeEarlierPlan(out),
  };
}

async function removeEarlierPlan(out: string): Promise<void> {
  const refuse = (message: string, cause?: unknown, hint = 'choose another --out for the plan') =>
    new UsageError('out_not_a_plan', message, { hint, ...(cause === undefined ? {} : { cause }) });
  const found = await lstat(out).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw refuse(`cannot tell what --out ${out} is: ${error.message}`, error);
  });
  if (found === undefined) return;
  const kind = await savedPlanKind(out).catch((error: Error) => {
    throw refuse(`cannot tell whether --out ${out} is an earlier plan: ${error.message}`, error);
  });
  if (kind === 'encrypted') {
    throw refuse(
      `--out ${out} is an OpenTofu encrypted file, which may be a state as well as a plan: tfgate replaces only a plan`,
      undefined,
      'if it is an earlier plan, remove it yourself; else choose another --out for the plan',
    );
  }
  if (kind !== 'plan') {
    throw refuse(
      `--out ${out} is not a terraform plan: tfgate replaces only an earlier plan there, never another file`,
      undefined,
      `choose another --out for the plan, or move ${out} away yourself`,
    );
  }
  await rm(out).catch((error: Error) => {
    throw new UsageError(
      'plan_not_saved',
      `cannot remove the earlier plan at --out ${out}: ${error.message}`,
      {
        hint: 'check that its directory is writable, or choose another --out',
        cause: error,
      },
    );
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
