// The wrapper's session: one run of terraform with the signal guard installed, and the policy loading while
// terraform plans. Everything is released when the run ends, however it ends.
import { resolve } from 'node:path';
import { isTfgateError, TerraformError, type TfgateError, UsageError } from '../../errors/index.js';
import { shownPath } from '../../errors/shown.js';
import type { ReportLocations } from '../../locate/index.js';
import type { PlanEvaluator } from '../../model/evaluator.js';
import { loadRenderers } from '../../report/targets.js';
import {
  guessProduct,
  type PassThroughArgs,
  parsePassThrough,
  resolveTerraformCommand,
  SignalGuard,
  Terraform,
} from '../../terraform/index.js';
import {
  type NamedOutput,
  reportOutputs,
  requireDirectory,
  requireOutputs,
  requireOutputsApartFromInputs,
} from '../input-files.js';
import { reportNoDecision as reportNoDecisionFiles } from '../no-decision.js';
import { checkRoute, openEvaluator, routeFiles } from '../route.js';
import type { WrapperContext, WrapperOptions } from './options.js';

/** One run of the wrapper: terraform, its arguments, the signal guard, and the policy being loaded. */
export interface WrapperSession {
  terraform: Terraform;
  args: PassThroughArgs;
  guard: SignalGuard;
  /**
   * The evaluator, once the policy is loaded and terraform identified. Both happen while terraform plans
   * (they cost time a plan does not wait for): the policy starts loading once the plan has started, or when
   * this is first read. If either fails, the running terraform is interrupted.
   */
  ready: Promise<PlanEvaluator>;
  /** Whether the policy has started loading (terraform plan started, or `ready` was read). */
  readonly loading: boolean;
  /** With --cdktf-stack: plan address -> construct path, for the reports. */
  constructPaths?: (addresses: Iterable<string>) => ReadonlyMap<string, string>;
  /** Where the findings are declared, in the configuration terraform plans. */
  locate: (addresses: string[]) => Promise<ReportLocations>;
  /**
   * No decision: each report file says so, so none keeps an earlier run's result (once per run). `advisory`:
   * the run goes ahead regardless (--advisory), rather than failing.
   */
  reportNoDecision: (error: TfgateError, advisory: boolean) => Promise<void>;
  /** The decision's reports are written: a later failure (terraform apply's) must not replace them. */
  decided: () => void;
}

/** What a command adds to the session's checks before terraform starts. */
export interface SessionSetup {
  /** Files the command writes besides the reports (plan's --out), checked with them. */
  outputs?: readonly NamedOutput[];
  /** Run once everything is checked, just before terraform starts (plan: clear a stale plan at --out). */
  beforeTerraform?: () => Promise<void>;
}

/** Install the signal guard, start terraform's identification and the policy's loading; dispose on exit. */
export async function withSession<T>(
  options: WrapperOptions,
  context: WrapperContext,
  run: (session: WrapperSession) => Promise<T>,
  setup: SessionSetup = {},
): Promise<T> {
  const guard = SignalGuard.install();
  let evaluator: PlanEvaluator | undefined;
  let ready: Promise<PlanEvaluator> | undefined;
  // 'pending' once the report files are checked (no file is written before), 'reported' once they are written
  // (the decision's, or "no decision").
  let noDecision: 'unchecked' | 'pending' | 'reported' = 'unchecked';
  const reportNoDecision = async (error: TfgateError, advisory: boolean) => {
    if (noDecision !== 'pending') return;
    noDecision = 'reported';
    await reportNoDecisionFiles(error, {
      reports: options.reports,
      about: { of: 'evaluation', packageId: options.route.packageId, minSeverity: options.minSeverity },
      advisory,
      advisoryGivenAs: options.advisoryGivenAs,
      warn: (message) => context.progress.warn(message),
    });
  };
  try {
    const command = resolveTerraformCommand(options.terraformBin, context.env);
    const args = parsePassThrough(options.terraformArgs, guessProduct(command));
    if (
      options.chdir !== undefined &&
      args.chdir !== undefined &&
      resolve(options.chdir) !== resolve(args.chdir)
    ) {
      throw new UsageError(
        'conflicting_chdir',
        `--chdir ${shownPath(options.chdir)} and -chdir=${shownPath(args.chdir)} disagree`,
        {
          hint: 'give the directory once, as --chdir <dir> or as -chdir=<dir> after --',
        },
      );
    }
    // Route and key settings first: a missing one must not come after terraform has planned.
    await checkRoute(options.route, context.env);
    const cdktf = await resolveCdktfTarget(options, args.chdir, context);
    // Where the reports (and the kept plan) go, too: a decision is never lost, after a whole plan, to a path
    // that cannot be written.
    const outputs = [...reportOutputs(options.reports), ...(setup.outputs ?? [])];
    requireOutputs(outputs);
    requireOutputsApartFromInputs(outputs, routeFiles(options.route));
    noDecision = 'pending';
    await setup.beforeTerraform?.();
    const machineReportOnStdout = options.reports.some(
      (r) => r.path === undefined && r.format !== 'text' && r.format !== 'markdown',
    );
    const workingDirectory = cdktf?.workingDirectory ?? options.chdir ?? args.chdir;
    // A directory that is not there is the user's to fix (exit 1), not terraform's failure (exit 2).
    if (workingDirectory !== undefined && cdktf === undefined) {
      requireDirectory(options.chdir !== undefined ? '--chdir' : '-chdir', workingDirectory);
    }
    const { terraform, identified } = Terraform.launch({
      bin: command,
      chdir: workingDirectory,
      env: context.env,
      // A JSON/SARIF/JUnit report on stdout must stay parseable: terraform's output moves to stderr.
      stdout: machineReportOnStdout ? 'stderr' : 'stdout',
      color: context.terraformColor ?? context.color,
      guard,
      onSpawn: (step) => {
        if (step === 'plan') startLoading();
      },
    });
    // Observed by `ready` once the policy starts loading; a binary that fails before then is not unhandled.
    identified.catch(() => {});
    const open =
      context.openEvaluator ??
      (() =>
        openEvaluator(options.route, {
          stderr: { write: (m: string) => context.progress.warn(m.trim()) },
          env: context.env,
        }));
    // The policy loads once terraform's plan has started: loading it first (modules, bundle) would delay
    // the plan's start by as long, and the plan is the long step. Whatever asks for it first starts it.
    function startLoading(): Promise<PlanEvaluator> {
      if (ready) return ready;
      // `live`: terraform may be writing to the terminal meanwhile, so no spinner.
      const loading = context.progress.step('Load policy', open, { live: true }).then(
        (loaded) => {
          evaluator = loaded;
          return loaded;
        },
        (error: unknown) => {
          // --advisory goes ahead without a decision (a bundle that does not verify, an expired key), as it
          // does when evaluating fails: terraform plans on, and evaluating says why there is no decision.
          if (!options.advisory || error instanceof TerraformError) throw error;
          return unloadedPolicy(error);
        },
      );
      // The report's renderers too, while terraform works: a broken install fails here, as a bad bundle does,
      // not once the decision is to be reported.
      ready = Promise.all([identified, loading, loadRenderers()]).then(([, loaded]) => {
        context.progress.info(`${terraform.description}; deciding with ${loaded.description}`);
        return loaded;
      });
      // Fail closed and fast: a bad bundle, key or binary stops whatever terraform already started.
      ready.catch(() => guard.forward('SIGINT'));
      return ready;
    }
    return await run({
      terraform,
      args,
      guard,
      get ready() {
        return startLoading();
      },
      get loading() {
        return ready !== undefined;
      },
      ...(cdktf ? { constructPaths: (addresses) => cdktf.constructPaths(addresses) } : {}),
      // The configuration is where terraform runs; loaded on demand, like the other stages.
      locate: async (addresses) =>
        (await import('../../locate/index.js')).locateForReport(addresses, {
          configDir: workingDirectory ?? process.cwd(),
          repositoryRoot: options.repositoryRoot,
          env: context.env,
        }),
      reportNoDecision,
      decided: () => {
        noDecision = 'reported';
      },
    });
  } catch (error) {
    // No decision (a bundle that does not verify, terraform's plan failed, an interrupt): the report files say
    // so, so none keeps an earlier run's result.
    if (isTfgateError(error)) await reportNoDecision(error, false);
    throw error;
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
  options: WrapperOptions,
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
      `--cdktf-stack ${shownPath(options.cdktfStack)} and ${shownPath(chdir)} both say where terraform runs: give one`,
      {
        hint: `--cdktf-stack runs terraform in the synthesized stack's directory (cdktf.out/stacks/${options.cdktfStack}); drop ${chdir}, or drop --cdktf-stack to plan another directory`,
      },
    );
  }
  // Loaded on demand: only CDKTF projects need it.
  const { resolveCdktfStack } = await import('../../cdktf/construct-paths.js');
  return resolveCdktfStack(options.cdktfStack, { projectDir: context.cdktfProjectDir });
}

/** With --advisory, a policy that could not be loaded: evaluating fails with the reason (no decision). */
function unloadedPolicy(error: unknown): PlanEvaluator {
  return {
    description: 'no policy: it could not be loaded',
    evaluate: () => Promise.reject(error),
  };
}
