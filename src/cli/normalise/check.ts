// `tfgate check`: flags and environment → CheckOptions (one plan) or CheckManyOptions (several plans, a glob, a
// plan map), parsed once. Flags win over the environment.
import { type CheckOptions, checkOptionsSchema } from '../../commands/check.js';
import { type CheckManyOptions, checkManyOptionsSchema } from '../../commands/check-many.js';
import { UsageError } from '../../errors/index.js';
import { parseOptions } from '../../options/common.js';
import { GivenSettings } from './given.js';
import { ROUTE_FLAG_NAMES, type RouteFlags, routeInputFromFlags } from './route.js';
import {
  accountInput,
  DECISION_FLAG_NAMES,
  type DecisionFlags,
  decisionInput,
  publicKeyInput,
} from './shared.js';

/** The flags as commander hands them over (repeatable ones as arrays). */
export interface CheckFlags extends RouteFlags, DecisionFlags {
  /** Repeatable; a single string when a caller (a test) passes one. */
  planJson?: string | string[];
  planFile?: string | string[];
  planMap?: string;
  chdir?: string;
  terraformBin?: string;
  customPolicyCheck?: boolean;
  approvedFindings?: string;
  configDir?: string;
  repositoryRoot?: string;
}

const CHECK_FLAG_NAMES: Readonly<Record<string, string>> = {
  ...ROUTE_FLAG_NAMES,
  ...DECISION_FLAG_NAMES,
  'plan.path': '--plan-json/--plan-file',
  plans: '--plan-json/--plan-file',
  planMap: '--plan-map',
  approvedFindings: '--approved-findings',
  configDir: '--config-dir',
  repositoryRoot: '--repository-root',
};

const list = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** One plan given once: the single-plan check (its reports as before). Anything else: many plans. */
export function normaliseCheckInput(
  flags: CheckFlags,
  env: NodeJS.ProcessEnv,
): CheckOptions | CheckManyOptions {
  const planJson = list(flags.planJson);
  const planFile = list(flags.planFile);
  const plans = [
    ...planJson.map((path) => ({ kind: 'plan-json' as const, path })),
    ...planFile.map((path) => ({
      kind: 'plan-file' as const,
      path,
      chdir: flags.chdir,
      terraformBin: flags.terraformBin,
    })),
  ];
  if (plans.length === 0 && flags.planMap === undefined) {
    throw new UsageError(
      'plan_input_required',
      'give a plan: --plan-json <file|->, --plan-file <planfile>, or several (repeated, a directory, a glob, or --plan-map <file>)',
      {
        hint: 'e.g. tfgate check --plan-file plan.out ... (Atlantis: $PLANFILE, or --plan-json $SHOWFILE); a stack: --plan-json "stacks/**/plan.json"',
      },
    );
  }
  if (plans.length === 1 && flags.planMap === undefined) return normaliseCheckOptions(flags, env);
  for (const [flag, given] of [
    ['--custom-policy-check', flags.customPolicyCheck],
    ['--approved-findings', flags.approvedFindings],
    ['--config-dir', flags.configDir],
  ] as const) {
    if (given) {
      throw new UsageError('plan_input_required', `${flag} is for one plan, and several were given`, {
        hint: 'check each plan on its own, or give each plan its configuration in a --plan-map (config_dir)',
      });
    }
  }
  // With a plan map the command line's route is optional: the map may name each plan's package or bundle.
  const routeGiven = flags.bundle !== undefined || flags.package !== undefined;
  const given = new GivenSettings(env, CHECK_FLAG_NAMES);
  const input = {
    plans,
    planMap: flags.planMap,
    ...(routeGiven || flags.planMap === undefined ? { route: routeInputFromFlags(flags, env) } : {}),
    routeDefaults: {
      baseUrl: flags.baseUrl,
      caFile: flags.caFile,
      ...publicKeyInput(flags, env),
      allowUnsigned: flags.allowUnsignedBundleINSECURE ?? false,
      account: accountInput(flags, env),
      timeout: flags.timeout,
      retries: flags.retries,
    },
    ...decisionInput(flags, given),
    repositoryRoot: flags.repositoryRoot,
  };
  return parseOptions(checkManyOptionsSchema, input, given.flagNames);
}

/** The single-plan check's options (exactly one --plan-json or --plan-file). */
export function normaliseCheckOptions(flags: CheckFlags, env: NodeJS.ProcessEnv): CheckOptions {
  const planJson = list(flags.planJson);
  const planFile = list(flags.planFile);
  if (planJson.length + planFile.length !== 1) {
    throw new UsageError(
      'plan_input_required',
      'give exactly one plan input: --plan-json <file|-> or --plan-file <planfile>',
      {
        hint: 'several plans are checked by `tfgate check` itself (normaliseCheckInput)',
      },
    );
  }
  const given = new GivenSettings(env, CHECK_FLAG_NAMES);
  const input = {
    plan:
      planFile.length === 1
        ? { kind: 'plan-file', path: planFile[0], chdir: flags.chdir, terraformBin: flags.terraformBin }
        : { kind: 'plan-json', path: planJson[0] },
    route: routeInputFromFlags(flags, env),
    ...decisionInput(flags, given),
    customPolicyCheck: flags.customPolicyCheck ?? false,
    approvedFindings: flags.approvedFindings,
    configDir: flags.configDir,
    repositoryRoot: flags.repositoryRoot,
  };
  return parseOptions(checkOptionsSchema, input, given.flagNames);
}
