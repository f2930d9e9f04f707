// `tfgate check`: evaluate an existing plan (no terraform run) with exactly one plan input and one route.
import { access, constants, rm } from 'node:fs/promises';
import { z } from 'zod';
import { ExitCode, InvalidPlanError, UsageError } from '../errors/index.js';
import {
  advisorySchema,
  envBoolean,
  minSeveritySchema,
  nonEmpty,
  parseOptions,
  reportTargetsFromFlags,
  reportTargetsSchema,
} from '../options/common.js';
import { fileSource, type PlanSource, stdinSource } from '../plan/index.js';
import type { ReportTarget } from '../report/index.js';
import { advisoryWithoutDecision } from './advisory.js';
import { readApprovedFindings, withApprovedFindings } from './approved-findings.js';
import type { PlanEvaluator } from './evaluator.js';
import { evaluatePlan, type PipelineOutcome } from './pipeline.js';

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

/** Who decides: a signed bundle, offline (--bundle), or the service (--package). */
export const routeSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('bundle'),
      bundle: z.string().min(1),
      publicKey: z.string().min(1).optional(),
      /** INSECURE opt-in: accept a bundle without .signatures.json (warned about on stderr every time). */
      allowUnsigned: z.boolean().default(false),
      /** Refuse a bundle built for another package. */
      packageId: z.string().min(1).optional(),
    })
    .refine((r) => r.publicKey !== undefined || r.allowUnsigned, {
      message: 'a bundle is verified with the platform public key: pass --public-key <pem>',
      path: ['publicKey'],
    }),
  /** The service decides: the plan is streamed to it; the key comes from TFGATE_API_KEY only. */
  z.object({
    kind: z.literal('remote'),
    /** The service validates the id (404 package_not_found); it is URL-encoded into the path. */
    packageId: z.string().min(1),
    /** Falls back to TFGATE_BASE_URL. */
    baseUrl: z.string().min(1).optional(),
    caFile: z.string().min(1).optional(),
  }),
]);
export type RouteOption = z.output<typeof routeSchema>;

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
  })
  .refine(
    (o) => !o.customPolicyCheck || o.reports.every((t) => t.path !== undefined || t.format === 'text'),
    {
      message:
        '--custom-policy-check prints the text report on stdout, where Atlantis reads it: give the other --format an --output <file>',
      path: ['reports'],
    },
  );
export type CheckOptions = z.input<typeof checkOptionsSchema>;

/** The flags as commander hands them over (repeatable ones as arrays). */
export interface CheckFlags extends RouteFlags {
  planJson?: string;
  planFile?: string;
  chdir?: string;
  terraformBin?: string;
  minSeverity?: string;
  format?: string[];
  output?: string[];
  advisory?: boolean;
  customPolicyCheck?: boolean;
  approvedFindings?: string;
}

/** The route flags, shared with `tfgate plan` and `tfgate apply`. */
export interface RouteFlags {
  baseUrl?: string;
  caFile?: string;
  bundle?: string;
  publicKey?: string;
  allowUnsignedBundleINSECURE?: boolean;
  package?: string;
}

export const FLAG_NAMES: Record<string, string> = {
  'plan.path': '--plan-json/--plan-file',
  'route.bundle': '--bundle',
  'route.publicKey': '--public-key',
  'route.packageId': '--package',
  'route.baseUrl': '--base-url',
  minSeverity: '--min-severity',
  reports: '--format/--output',
  approvedFindings: '--approved-findings',
};

/** Flags and environment → validated options, in one place. Flags win over the environment. */
export function resolveCheckOptions(
  flags: CheckFlags,
  env: NodeJS.ProcessEnv,
): z.output<typeof checkOptionsSchema> {
  const planInputs = [
    flags.planJson !== undefined && '--plan-json',
    flags.planFile !== undefined && '--plan-file',
  ].filter(Boolean);
  if (planInputs.length !== 1) {
    throw new UsageError(
      'plan_input_required',
      'give exactly one plan input: --plan-json <file|-> or --plan-file <planfile>',
      {
        hint: 'e.g. tfgate check --plan-file plan.out ... (Atlantis: $PLANFILE, or --plan-json $SHOWFILE)',
      },
    );
  }
  return parseOptions(
    checkOptionsSchema,
    {
      plan:
        flags.planFile !== undefined
          ? { kind: 'plan-file', path: flags.planFile, chdir: flags.chdir, terraformBin: flags.terraformBin }
          : { kind: 'plan-json', path: flags.planJson },
      route: routeInputFromFlags(flags, env),
      minSeverity: flags.minSeverity ?? nonEmpty(env.TFGATE_MIN_SEVERITY),
      reports: reportTargetsFromFlags(flags.format, flags.output),
      advisory: flags.advisory ?? envBoolean(env, 'TFGATE_ADVISORY'),
      customPolicyCheck: flags.customPolicyCheck ?? false,
      approvedFindings: flags.approvedFindings,
    },
    FLAG_NAMES,
  );
}

/** Route flags and environment → the route's input (validated by routeSchema). Exactly one route. */
export function routeInputFromFlags(flags: RouteFlags, env: NodeJS.ProcessEnv): z.input<typeof routeSchema> {
  // --package alone is the service route; with --bundle it names the package the bundle must be for.
  if (flags.bundle === undefined && flags.package !== undefined) {
    return { kind: 'remote', packageId: flags.package, baseUrl: flags.baseUrl, caFile: flags.caFile };
  }
  if (flags.bundle === undefined || flags.baseUrl !== undefined) {
    throw new UsageError(
      'route_required',
      flags.bundle === undefined
        ? 'give exactly one route: --package <id> (the service) or --bundle <bundle.tar.gz> --public-key <pem>'
        : '--bundle and --base-url are two routes: give exactly one',
      {
        hint: 'the service: --package <id> with --base-url or TFGATE_BASE_URL and TFGATE_API_KEY; offline: `tfgate bundle pull`, then --bundle and --public-key',
      },
    );
  }
  return {
    kind: 'bundle',
    bundle: flags.bundle as string,
    publicKey: flags.publicKey ?? nonEmpty(env.TFGATE_PUBLIC_KEY),
    allowUnsigned: flags.allowUnsignedBundleINSECURE ?? false,
    packageId: flags.package,
  };
}

export interface CheckContext {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown };
  env: NodeJS.ProcessEnv;
  color: boolean;
}

export async function runCheck(input: CheckOptions, context: CheckContext): Promise<PipelineOutcome> {
  const options = checkOptionsSchema.parse(input);
  const reports = options.customPolicyCheck ? await policyCheckReports(options.reports) : options.reports;
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

export async function openEvaluator(
  route: RouteOption,
  context: Pick<CheckContext, 'stderr'> & { env?: NodeJS.ProcessEnv },
): Promise<PlanEvaluator> {
  switch (route.kind) {
    case 'remote': {
      // Loaded on demand: the HTTP client (undici) costs startup time the offline bundle route never needs.
      const { RemoteEvaluator, ServiceClient } = await import('../client/index.js');
      const client = await ServiceClient.fromOptions(
        { baseUrl: route.baseUrl, caFile: route.caFile },
        context.env ?? process.env,
      );
      const remote = new RemoteEvaluator(client, route.packageId);
      return {
        description: remote.description,
        evaluate: (source, minSeverity) => remote.evaluate(source, minSeverity),
        close: () => client.close(),
      };
    }
    case 'bundle': {
      // Loaded on demand (opa-wasm, tar): `tfgate apply` loads it while terraform plans.
      const { BundleEvaluator } = await import('../policy/bundle/index.js');
      return BundleEvaluator.open(route.bundle, {
        publicKeyPath: route.publicKey,
        allowUnsigned: route.allowUnsigned,
        expectedPackageId: route.packageId,
        warn: (message) => context.stderr.write(`${message}\n`),
      });
    }
  }
}
