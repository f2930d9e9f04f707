// `tfgate check` with many plans (a monorepo, a Terragrunt stack): read → evaluate → report → act, as the
// single-plan check, over a set of roots. Each plan is judged against its own package; one combined decision:
// blocked if any root is blocked, else no decision if any root has none, never a pass that skipped one.
import { availableParallelism } from 'node:os';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import {
  ADVISORY_CONSEQUENCE,
  advisoryNotice,
  ExitCode,
  errorMessage,
  isTfgateError,
  NoDecisionError,
} from '../errors/index.js';
import { plural } from '../errors/plural.js';
import { shownPath } from '../errors/shown.js';
import { detailsUnavailable, type PlanEvaluator } from '../model/evaluator.js';
import { combineDecisions } from '../model/index.js';
import {
  advisoryGivenAsSchema,
  advisorySchema,
  minSeveritySchema,
  reportTargetsSchema,
} from '../options/common.js';
import type { RootReport, RootsReport } from '../report/subject.js';
import { emitReports } from '../report/targets.js';
import * as z from '../schemas/zod.js';
import { mapWithinBound } from './bounded.js';
import { reportOutputs, requireOutputs, requireOutputsApartFromInputs } from './input-files.js';
import type { CommandIo } from './io.js';
import { planInputSchema, planSource } from './plan-input.js';
import { type PlanRoot, resolvePlanSet } from './plan-set.js';
import { checkRoute, openEvaluator, type RouteOption, routeFiles, routeSchema } from './route.js';

export const checkManyOptionsSchema = z
  .object({
    /** From the flags: each path a file, a directory (every plan under it) or a glob. */
    plans: z._default(z.array(planInputSchema), []),
    /** A plan map: each plan (or pattern) with its own root name, package or bundle, and configuration. */
    planMap: z.optional(z.string().check(z.minLength(1))),
    /** The command line's route, for plans the map gives no package; optional with a plan map. */
    route: z.optional(routeSchema),
    /** What a map entry's route takes from the command line: the service's address, the platform key. */
    routeDefaults: z._default(
      z.object({
        baseUrl: z.optional(z.string().check(z.minLength(1))),
        caFile: z.optional(z.string().check(z.minLength(1))),
        publicKey: z.optional(z.string().check(z.minLength(1))),
        publicKeyGivenAs: z.optional(z.string().check(z.minLength(1))),
        allowUnsigned: z._default(z.boolean(), false),
        account: z.optional(z.string().check(z.minLength(1))),
        timeout: z.optional(z.string()),
        retries: z.optional(z.string()),
      }),
      { allowUnsigned: false },
    ),
    minSeverity: minSeveritySchema,
    reports: reportTargetsSchema,
    advisory: advisorySchema,
    advisoryGivenAs: advisoryGivenAsSchema,
    repositoryRoot: z.optional(z.string().check(z.minLength(1))),
    /** Plans read and evaluated at once. */
    concurrency: z._default(z.number().check(z.int(), z.gte(1)), () =>
      Math.min(4, availableParallelism() + 1),
    ),
    /** Plan bytes held in memory at once, over the plans being read (a plan larger than this runs alone). */
    memoryBudgetBytes: z._default(z.number().check(z.int(), z.gte(1)), 512 * 1024 * 1024),
  })
  .check(
    z.refine((o) => o.plans.length > 0 || o.planMap !== undefined, {
      message:
        'give the plans: --plan-json/--plan-file (repeatable: files, directories or globs) or --plan-map',
      path: ['plans'],
    }),
  );
export type CheckManyOptions = z.output<typeof checkManyOptionsSchema>;

export interface CheckManyOutcome {
  report: RootsReport;
  /** 0 pass (or advisory), 3 blocked. No decision for any root is a thrown NoDecisionError (exit 4), unless advisory. */
  exitCode: ExitCode;
}

export async function runCheckMany(options: CheckManyOptions, context: CommandIo): Promise<CheckManyOutcome> {
  // Read: which plans, each with its root, package and route; usage errors all come before any evaluation.
  const outputs = reportOutputs(options.reports);
  requireOutputs(outputs);
  const roots = await resolvePlanSet(options);
  for (const route of distinctRoutes(roots)) await checkRoute(route, context.env);
  requireOutputsApartFromInputs(outputs, [
    ...(options.planMap === undefined ? [] : [{ flag: '--plan-map', path: options.planMap }]),
    ...roots.map((root) => ({ flag: `--${root.plan.kind}`, path: root.plan.path })),
    ...distinctRoutes(roots).flatMap(routeFiles),
  ]);
  const evaluators = new EvaluatorPool(context);
  try {
    // Evaluate: in parallel, within the memory budget; each root's failure is that root's "no decision".
    const bound = { concurrency: options.concurrency, budget: options.memoryBudgetBytes };
    const results = await mapWithinBound(
      roots,
      bound,
      (root) => root.cost,
      (root) => evaluateRoot(root, evaluators, options, context.env),
    );
    const report: RootsReport = {
      kind: 'roots',
      decision: combineDecisions(results.map((r) => r.subject?.result.decision)),
      minSeverity: options.minSeverity,
      roots: results,
      ...(options.advisory ? { advisory: true } : {}),
      ...(options.advisory && options.advisoryGivenAs ? { advisoryGivenAs: options.advisoryGivenAs } : {}),
    };
    // Report, then act.
    await emitReports(report, options.reports, context);
    return { report, exitCode: act(report, options.advisory, context.stderr) };
  } finally {
    await evaluators.close();
  }
}

/** The exit: pass 0; a block 3; no decision for a root is thrown (exit 4). Advisory mode says so and exits 0. */
function act(report: RootsReport, advisory: boolean, stderr: CommandIo['stderr']): ExitCode {
  if (report.decision === 'pass') return ExitCode.ok;
  const undecided = report.roots.filter((r) => !r.subject);
  const reason = `no decision for ${undecided.length} of ${plural(report.roots.length, 'plan')}: ${undecided
    .map((r) => `${shownPath(r.root)} (${r.noDecision?.message ?? 'not evaluated'})`)
    .join('; ')}`;
  if (advisory) {
    const findings = report.roots.reduce(
      (n, r) => n + (r.subject?.result.decision === 'block' ? r.subject.result.findings.length : 0),
      0,
    );
    const situations = [
      ...(report.decision === 'block'
        ? [{ kind: 'would-block' as const, findings, minSeverity: report.minSeverity }]
        : []),
      ...(undecided.length > 0 ? [{ kind: 'no-decision' as const, reason }] : []),
    ];
    for (const s of situations) {
      stderr.write(`${advisoryNotice(s, ADVISORY_CONSEQUENCE.notEnforced, report.advisoryGivenAs)}\n`);
    }
    return ExitCode.ok;
  }
  if (report.decision === 'block') return ExitCode.blocked;
  throw new NoDecisionError('evaluation_failed', reason, {
    hint: 'nothing was decided for these plans; fix the cause and run again (the report lists every plan)',
  });
}

/** One root: open its route's evaluator, read and evaluate its plan, locate its findings. Never throws. */
async function evaluateRoot(
  root: PlanRoot,
  evaluators: EvaluatorPool,
  options: CheckManyOptions,
  env: NodeJS.ProcessEnv | undefined,
): Promise<RootReport> {
  const packageId = root.route.packageId;
  const head = {
    root: root.root,
    plan: root.plan.path === '-' ? 'stdin' : root.plan.path,
    ...(packageId ? { packageId } : {}),
  };
  try {
    const evaluator = await evaluators.get(root.route);
    const source = await planSource(root.plan, env);
    const result = await evaluator.evaluate(source, options.minSeverity);
    const { locateForReport } = await import('../locate/index.js');
    const located = await locateForReport(
      result.findings.map((f) => f.address),
      {
        configDir: root.configDir,
        repositoryRoot: options.repositoryRoot,
        // The plan file stands for findings without a declaration of their own (JSON or saved plan alike).
        planJsonFile: root.plan.path === '-' ? undefined : root.plan.path,
        env,
      },
    );
    const unavailable = detailsUnavailable(result);
    return {
      ...head,
      packageId: result.package_id,
      subject: {
        kind: 'evaluation',
        result,
        ...(unavailable ? { detailsUnavailable: unavailable } : {}),
        ...(located.locations.size > 0 ? { locations: located.locations } : {}),
        ...(located.fallbackFile ? { fallbackFile: located.fallbackFile } : {}),
        ...(located.fallbackDirectory ? { fallbackDirectory: located.fallbackDirectory } : {}),
      },
      ...rootPath(root, options.repositoryRoot),
    };
  } catch (error) {
    return { ...head, noDecision: noDecisionOf(error) };
  }
}

/** The root's directory relative to the repository (default: the working directory), when inside it. */
function rootPath(root: PlanRoot, repositoryRoot: string | undefined): { rootPath?: string } {
  const directory =
    root.configDir ??
    (root.plan.kind === 'plan-file' ? root.plan.chdir : undefined) ??
    dirname(root.plan.path);
  if (root.plan.path === '-' && root.configDir === undefined) return {};
  const path = relative(resolve(repositoryRoot ?? process.cwd()), resolve(directory));
  if (isAbsolute(path) || path === '..' || path.startsWith(`..${sep}`)) return {};
  return { rootPath: path === '' ? '.' : path.split(sep).join('/') };
}

function noDecisionOf(error: unknown): NonNullable<RootReport['noDecision']> {
  if (isTfgateError(error)) {
    return { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  }
  return {
    code: 'evaluation_failed',
    message: `the plan could not be evaluated: ${errorMessage(error)}`,
  };
}

function routeKey(route: RouteOption): string {
  return JSON.stringify(route);
}

function distinctRoutes(roots: readonly PlanRoot[]): RouteOption[] {
  return [...new Map(roots.map((r) => [routeKey(r.route), r.route])).values()];
}

/** One evaluator per distinct route, opened on first use and shared by its roots; a failed open fails its roots. */
class EvaluatorPool {
  readonly #open = new Map<string, Promise<PlanEvaluator>>();
  readonly #context: CommandIo;

  constructor(context: CommandIo) {
    this.#context = context;
  }

  get(route: RouteOption): Promise<PlanEvaluator> {
    const key = routeKey(route);
    let evaluator = this.#open.get(key);
    if (!evaluator) {
      evaluator = openEvaluator(route, this.#context);
      evaluator.catch(() => {}); // each root that uses it reports the failure
      this.#open.set(key, evaluator);
    }
    return evaluator;
  }

  async close(): Promise<void> {
    const opened = await Promise.allSettled(this.#open.values());
    for (const result of opened) if (result.status === 'fulfilled') await result.value.close?.();
  }
}
