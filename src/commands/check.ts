// `tfgate check`: evaluate existing plans (no terraform run): one plan and one route (this file), or many plans
// each with its package, under one verdict (check-many.ts).
import { rm, stat } from 'node:fs/promises';
import { ExitCode, UsageError } from '../errors/index.js';
import type { PlanEvaluator } from '../model/evaluator.js';
import {
  advisoryGivenAsSchema,
  advisorySchema,
  minSeveritySchema,
  reportTargetsSchema,
} from '../options/common.js';
import type { PlanSource } from '../plan/index.js';
import { githubAnnotationsEnabled } from '../report/github.js';
import type { ReportTarget } from '../report/targets.js';
import * as z from '../schemas/zod.js';
import type { ApprovedFindings } from './approved-findings.js';
import {
  type CheckManyOptions,
  type CheckManyOutcome,
  checkManyOptionsSchema,
  runCheckMany,
} from './check-many.js';
import { reportOutputs, requireFiles, requireOutputs, requireOutputsApartFromInputs } from './input-files.js';
import { untilInterrupted } from './interruptible.js';
import type { CommandIo } from './io.js';
import { type NoDecisionAbout, settingsOrNoDecision, withoutDecision } from './no-decision.js';
import { evaluatePlan, type PipelineOutcome } from './pipeline.js';
import { planInputSchema, planSource } from './plan-input.js';
import { checkRoute, openEvaluator, routeFiles, routeSchema } from './route.js';

export { type PlanInputOption, planInputSchema, planSource } from './plan-input.js';

const PLAN_FLAG = { 'plan-json': '--plan-json', 'plan-file': '--plan-file' } as const;

export const checkOptionsSchema = z
  .object({
    plan: planInputSchema,
    route: routeSchema,
    minSeverity: minSeveritySchema,
    reports: reportTargetsSchema,
    advisory: advisorySchema,
    advisoryGivenAs: advisoryGivenAsSchema,
    /**
     * Atlantis's custom_policy_check reads a policy result from the output of a step that exits 0: a block
     * exits 0 with the text report on stdout, "FAIL: N failures" first. No decision still exits 4.
     */
    customPolicyCheck: z._default(z.boolean(), false),
    /** The JSON result of an earlier check whose blocking findings were approved (Atlantis's approve_policies). */
    approvedFindings: z.optional(z.string().check(z.minLength(1))),
    /**
     * The configuration the plan was made from, so findings get the file and line that declare them. Default
     * with --plan-file: where terraform ran (--chdir, else the working directory); with --plan-json: none.
     */
    configDir: z.optional(z.string().check(z.minLength(1))),
    /** Locations are relative to this (default: the git work tree holding the configuration). */
    repositoryRoot: z.optional(z.string().check(z.minLength(1))),
  })
  .check(
    z.refine(
      (o) => !o.customPolicyCheck || o.reports.every((t) => t.path !== undefined || t.format === 'text'),
      {
        message:
          '--custom-policy-check prints the text report on stdout, where Atlantis reads it: give the other --format an --output <file>',
        path: ['reports'],
      },
    ),
  );
export type CheckOptions = z.output<typeof checkOptionsSchema>;

export type CheckContext = CommandIo;

/**
 * One plan (the contract's single evaluation, as before), or many (`plans`, or a directory or glob given as the
 * one plan): each judged against its package, one combined decision, one report grouped by root.
 */
export async function runCheck(
  options: CheckOptions | CheckManyOptions,
  context: CheckContext,
): Promise<PipelineOutcome | CheckManyOutcome> {
  return untilInterrupted(
    async (interrupted) => {
      const run = { ...context, interrupted };
      if ('plans' in options) return runCheckMany(options, run);
      if (await namesManyPlans(options.plan.path)) return runCheckMany(manyFromOne(options), run);
      return runCheckOne(options, run);
    },
    {
      during: 'the evaluation',
      reports: options.reports,
      about: evaluationAbout(options),
      stderr: context.stderr,
    },
  );
}

/** What a check without a decision was to decide, for its reports: the route's package, if it names one. */
function evaluationAbout(options: CheckOptions | CheckManyOptions): NoDecisionAbout {
  const packageId = options.route?.packageId;
  return { of: 'evaluation', ...(packageId ? { packageId } : {}), minSeverity: options.minSeverity };
}

/** A directory or a glob names a set of plans, even when it holds one: the report's shape follows the input. */
async function namesManyPlans(path: string): Promise<boolean> {
  if (path === '-') return false;
  const found = await stat(path).catch(() => undefined);
  if (found) return found.isDirectory();
  return /[*?[\]{}]/.test(path);
}

function manyFromOne(options: CheckOptions): CheckManyOptions {
  if (options.customPolicyCheck || options.approvedFindings || options.configDir) {
    const flag = options.customPolicyCheck
      ? '--custom-policy-check'
      : options.approvedFindings
        ? '--approved-findings'
        : '--config-dir';
    throw new UsageError(
      'plan_input_required',
      `${flag} is for one plan; ${options.plan.path} names a set of plans`,
      {
        hint: 'check each plan on its own, or give each plan its configuration in a --plan-map (config_dir)',
      },
    );
  }
  return checkManyOptionsSchema.parse({
    plans: [options.plan],
    route: options.route,
    minSeverity: options.minSeverity,
    reports: options.reports,
    advisory: options.advisory,
    advisoryGivenAs: options.advisoryGivenAs,
    ...(options.repositoryRoot ? { repositoryRoot: options.repositoryRoot } : {}),
  });
}

async function runCheckOne(options: CheckOptions, context: CheckContext): Promise<PipelineOutcome> {
  // Files the user named, and the route's settings, before anything is read: a missing one is a usage error.
  const inputs = [
    ...(options.plan.path === '-' ? [] : [{ flag: PLAN_FLAG[options.plan.kind], path: options.plan.path }]),
    ...(options.approvedFindings ? [{ flag: '--approved-findings', path: options.approvedFindings }] : []),
  ];
  const outputs = reportOutputs(options.reports);
  requireOutputs(outputs);
  requireOutputsApartFromInputs(outputs, [...inputs, ...routeFiles(options.route)]);
  const target = { reports: options.reports, about: evaluationAbout(options), stderr: context.stderr };
  await settingsOrNoDecision(async () => {
    await requireFiles(inputs);
    await checkRoute(options.route, context.env);
  }, target);
  const reports = options.customPolicyCheck ? await policyCheckReports(options.reports) : options.reports;
  // No decision (a bad bundle, an unreadable plan): the report files say so; advisory mode notes it loudly
  // and exits 0.
  const undecided = (error: unknown): Promise<PipelineOutcome> =>
    withoutDecision(error, {
      ...target,
      reports,
      advisory: options.advisory,
      advisoryGivenAs: options.advisoryGivenAs,
    }).then((exitCode) => ({
      result: undefined,
      exitCode,
    }));
  let evaluator: PlanEvaluator;
  let source: PlanSource;
  let approved: ApprovedFindings | undefined;
  try {
    // Loaded only with --approved-findings: it reads a whole earlier result through the contract's schemas.
    const approvals = options.approvedFindings ? await import('./approved-findings.js') : undefined;
    approved =
      approvals && options.approvedFindings
        ? await approvals.readApprovedFindings(options.approvedFindings)
        : undefined;
    // The evaluator first: a bad bundle or key is refused before any plan byte is read.
    evaluator = await openEvaluator(options.route, context);
    if (approvals && approved) evaluator = approvals.withApprovedFindings(evaluator, approved);
    source = await planSource(options.plan, context.env).catch(async (error: unknown) => {
      await evaluator.close?.();
      throw error;
    });
  } catch (error) {
    return undecided(error);
  }
  try {
    const outcome = await evaluatePlan({
      source,
      evaluator,
      minSeverity: options.minSeverity,
      reports,
      advisory: options.advisory,
      advisoryGivenAs: options.advisoryGivenAs,
      stdout: context.stdout,
      stderr: context.stderr,
      color: context.color,
      env: context.env,
      ...(context.interrupted ? { interrupted: context.interrupted } : {}),
      ...(approved ? { approvals: approved.approvals } : {}),
      ...(needsLocations(options, reports, context.env)
        ? { locate: (addresses: string[]) => locateCheckFindings(addresses, options, context.env) }
        : {}),
    });
    // The block is in the output ("FAIL: N failures"); a non-zero exit would make Atlantis discard it.
    if (options.customPolicyCheck && outcome.exitCode === ExitCode.blocked) {
      return { ...outcome, exitCode: ExitCode.ok };
    }
    return outcome;
  } catch (error) {
    // Awaited here: returned unawaited, its rejection (no decision) would wait unhandled while finally closes
    // the evaluator, and Node ends the process on an unhandled rejection (exit 1, a raw stack).
    return await undecided(error);
  } finally {
    await evaluator.close?.();
  }
}

/**
 * Without a configuration nothing is located, and the plan file stands in only in SARIF results and GitHub
 * annotations (each needs a file): a plain `check --plan-json` with other reports skips the search for the
 * repository root and the locator's modules.
 */
function needsLocations(
  options: CheckOptions,
  reports: readonly ReportTarget[],
  env: NodeJS.ProcessEnv,
): boolean {
  if (options.configDir !== undefined || options.plan.kind === 'plan-file') return true;
  return reports.some((target) => target.format === 'sarif') || githubAnnotationsEnabled(env);
}

/** Where the findings are declared: in the configuration the plan was made from, when check knows it. */
async function locateCheckFindings(addresses: string[], options: CheckOptions, env: NodeJS.ProcessEnv) {
  // Loaded on demand, like the other stages only some runs need.
  const { locateForReport } = await import('../locate/index.js');
  const plan = options.plan;
  return locateForReport(addresses, {
    configDir: options.configDir ?? (plan.kind === 'plan-file' ? (plan.chdir ?? process.cwd()) : undefined),
    repositoryRoot: options.repositoryRoot,
    // The plan file (JSON or saved plan) stands for findings without a declaration of their own.
    planJsonFile: plan.path !== '-' ? plan.path : undefined,
    env,
  });
}
/**
 * --custom-policy-check: the text report always goes to stdout, and the report files are removed first, so
 * a check that reaches no decision never leaves an earlier result behind for a later step to read.
 */
async function policyCheckReports(reports: readonly ReportTarget[]): Promise<readonly ReportTarget[]> {
  for (const target of reports) {
    // A file that cannot be removed cannot be written either: that write reports the error.
    if (target.path !== undefined) await rm(target.path, { force: true }).catch(() => undefined);
  }
  return reports.some((t) => t.path === undefined) ? reports : [{ format: 'text' }, ...reports];
}
