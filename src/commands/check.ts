// `tfgate check`: evaluate an existing plan (no terraform run) with exactly one plan input and one route.
import { access, constants, rm } from 'node:fs/promises';
import { z } from 'zod';
import { ExitCode, InvalidPlanError } from '../errors/index.js';
import type { PlanEvaluator } from '../model/evaluator.js';
import { advisorySchema, minSeveritySchema, reportTargetsSchema } from '../options/common.js';
import { fileSource, type PlanSource, stdinSource } from '../plan/index.js';
import type { ReportTarget } from '../report/index.js';
import { advisoryWithoutDecision } from './advisory.js';
import { readApprovedFindings, withApprovedFindings } from './approved-findings.js';
import { requireFiles } from './input-files.js';
import type { CommandIo } from './io.js';
import { evaluatePlan, type PipelineOutcome } from './pipeline.js';
import { checkRoute, openEvaluator, routeSchema } from './route.js';

const PLAN_FLAG = { 'plan-json': '--plan-json', 'plan-file': '--plan-file' } as const;

/** Where the plan comes from: exactly one of --plan-json and --plan-file. */
export const planInputSchema = z.discriminatedUnion('kind', [
  /** `terraform show -json` output in a file, or "-" for stdin. */
  z.object({ kind: z.literal('plan-json'), path: z.string().min(1) }),
  /** A saved plan (Atlantis's $PLANFILE, Spacelift's spacelift.plan), streamed through `terraform show -json`. */
  z.object({
    kind: z.literal('plan-file'),
    path: z.string().min(1),
    chdir: z.string().min(1).optional(),
    terraformBin: z.string().min(1).optional(),
  }),
]);
export type PlanInputOption = z.output<typeof planInputSchema>;

export const checkOptionsSchema = z
  .object({
    plan: planInputSchema,
    route: routeSchema,
    minSeverity: minSeveritySchema,
    reports: reportTargetsSchema,
    advisory: advisorySchema,
    /**
     * Atlantis's custom_policy_check reads a policy result from the output of a step that exits 0: a block
     * exits 0 with the text report on stdout, "FAIL: N failures" first. No decision still exits 4.
     */
    customPolicyCheck: z.boolean().default(false),
    /** The JSON result of an earlier check whose blocking findings were approved (Atlantis's approve_policies). */
    approvedFindings: z.string().min(1).optional(),
    /**
     * The configuration the plan was made from, so findings get the file and line that declare them. Default
     * with --plan-file: where terraform ran (--chdir, else the working directory); with --plan-json: none.
     */
    configDir: z.string().min(1).optional(),
    /** Locations are relative to this (default: the git work tree holding the configuration). */
    repositoryRoot: z.string().min(1).optional(),
  })
  .refine(
    (o) => !o.customPolicyCheck || o.reports.every((t) => t.path !== undefined || t.format === 'text'),
    {
      message:
        '--custom-policy-check prints the text report on stdout, where Atlantis reads it: give the other --format an --output <file>',
      path: ['reports'],
    },
  );
export type CheckOptions = z.output<typeof checkOptionsSchema>;

export type CheckContext = CommandIo;

export async function runCheck(options: CheckOptions, context: CheckContext): Promise<PipelineOutcome> {
  const reports = options.customPolicyCheck ? await policyCheckReports(options.reports) : options.reports;
  // Files the user named, and the route's settings, before anything is read: a missing one is a usage error.
  await requireFiles([
    ...(options.plan.path === '-' ? [] : [{ flag: PLAN_FLAG[options.plan.kind], path: options.plan.path }]),
    ...(options.approvedFindings ? [{ flag: '--approved-findings', path: options.approvedFindings }] : []),
  ]);
  await checkRoute(options.route, context.env);
  let evaluator: PlanEvaluator;
  let source: PlanSource;
  let approved: Awaited<ReturnType<typeof readApprovedFindings>> | undefined;
  try {
    approved = options.approvedFindings ? await readApprovedFindings(options.approvedFindings) : undefined;
    // The evaluator first: a bad bundle or key is refused before any plan byte is read.
    evaluator = await openEvaluator(options.route, context);
    if (approved) evaluator = withApprovedFindings(evaluator, approved);
    source = await planSource(options.plan, context.env).catch(async (error: unknown) => {
      await evaluator.close?.();
      throw error;
    });
  } catch (error) {
    // No decision (a bad bundle, an unreadable plan): advisory mode notes it loudly and exits 0.
    return {
      result: undefined,
      exitCode: advisoryWithoutDecision(error, { advisory: options.advisory, stderr: context.stderr }),
    };
  }
  try {
    const outcome = await evaluatePlan({
      source,
      evaluator,
      minSeverity: options.minSeverity,
      reports,
      advisory: options.advisory,
      stdout: context.stdout,
      stderr: context.stderr,
      color: context.color,
      env: context.env,
      ...(approved ? { approvals: approved.approvals } : {}),
      locate: (addresses) => locateCheckFindings(addresses, options, context.env),
    });
    // The block is in the output ("FAIL: N failures"); a non-zero exit would make Atlantis discard it.
    if (options.customPolicyCheck && outcome.exitCode === ExitCode.blocked) {
      return { ...outcome, exitCode: ExitCode.ok };
    }
    return outcome;
  } finally {
    await evaluator.close?.();
  }
}

/** Where the findings are declared: in the configuration the plan was made from, when check knows it. */
async function locateCheckFindings(addresses: string[], options: CheckOptions, env: NodeJS.ProcessEnv) {
  // Loaded on demand, like the other stages only some runs need.
  const { locateForReport } = await import('../locate/index.js');
  const plan = options.plan;
  return locateForReport(addresses, {
    configDir: options.configDir ?? (plan.kind === 'plan-file' ? (plan.chdir ?? process.cwd()) : undefined),
    repositoryRoot: options.repositoryRoot,
    planJsonFile: plan.kind === 'plan-json' && plan.path !== '-' ? plan.path : undefined,
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

/** A plan that cannot be read leaves nothing to decide on: exit 4, naming the file. */
export async function planSource(
  plan: PlanInputOption,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PlanSource> {
  switch (plan.kind) {
    case 'plan-file': {
      await access(plan.path, constants.R_OK).catch((error: unknown) => {
        throw new InvalidPlanError(`cannot read the plan file ${plan.path}: ${(error as Error).message}`, {
          hint: 'pass a plan written by `terraform plan -out <planfile>` (Atlantis: $PLANFILE; Spacelift: spacelift.plan)',
          cause: error,
        });
      });
      // Loaded on demand: only --plan-file runs terraform.
      const { Terraform } = await import('../terraform/index.js');
      const terraform = await Terraform.open({ bin: plan.terraformBin, chdir: plan.chdir, env });
      return terraform.showJson(plan.path);
    }
    case 'plan-json':
      if (plan.path === '-') return stdinSource();
      await access(plan.path, constants.R_OK).catch((error: unknown) => {
        throw new InvalidPlanError(`cannot read the plan ${plan.path}: ${(error as Error).message}`, {
          hint: 'pass the output of `terraform show -json <planfile>` (or - to read it from stdin)',
          cause: error,
        });
      });
      return fileSource(plan.path);
  }
}
