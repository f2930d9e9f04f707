// `tfgate plan` and `tfgate apply`: flags, the terraform arguments after --, and environment → their
// options, parsed once. The route, severity and report flags mean what they mean for `tfgate check`.
import { type ApplyOptions, applyOptionsSchema } from '../../commands/apply.js';
import { type PlanOptions, planOptionsSchema } from '../../commands/plan.js';
import { parseOptions } from '../../options/common.js';
import type * as z from '../../schemas/zod.js';
import { GivenSettings } from './given.js';
import { ROUTE_FLAG_NAMES, type RouteFlags, routeInputFromFlags } from './route.js';
import { DECISION_FLAG_NAMES, type DecisionFlags, decisionInput } from './shared.js';

/** The flags `tfgate plan` and `tfgate apply` share, as commander hands them over. */
export interface WrapperFlags extends RouteFlags, DecisionFlags {
  terraformBin?: string;
  chdir?: string;
  cdktfStack?: string;
  repositoryRoot?: string;
}

const WRAPPER_FLAG_NAMES: Readonly<Record<string, string>> = {
  ...ROUTE_FLAG_NAMES,
  ...DECISION_FLAG_NAMES,
  terraformBin: '--terraform-bin',
  chdir: '--chdir',
  cdktfStack: '--cdktf-stack',
  repositoryRoot: '--repository-root',
  terraformArgs: 'terraform plan arguments (after --)',
  out: '--out',
  planFile: '--plan-file',
};

/** The shared flags plus the command's own (`own`), parsed by the command's schema. */
function normaliseWrapper<S extends z.ZodMiniType>(
  schema: S,
  flags: WrapperFlags,
  terraformArgs: string[],
  env: NodeJS.ProcessEnv,
  own: Record<string, unknown>,
): z.output<S> {
  const given = new GivenSettings(env, WRAPPER_FLAG_NAMES);
  const input = {
    route: routeInputFromFlags(flags, env),
    terraformBin: flags.terraformBin,
    chdir: flags.chdir,
    cdktfStack: flags.cdktfStack,
    repositoryRoot: flags.repositoryRoot,
    terraformArgs,
    ...decisionInput(flags, given),
    ...own,
  };
  return parseOptions(schema, input, given.flagNames);
}

export function normalisePlanOptions(
  flags: WrapperFlags & { out?: string },
  terraformArgs: string[],
  env: NodeJS.ProcessEnv,
): PlanOptions {
  return normaliseWrapper(planOptionsSchema, flags, terraformArgs, env, { out: flags.out });
}

export function normaliseApplyOptions(
  flags: WrapperFlags & { planFile?: string },
  terraformArgs: string[],
  env: NodeJS.ProcessEnv,
): ApplyOptions {
  return normaliseWrapper(applyOptionsSchema, flags, terraformArgs, env, { planFile: flags.planFile });
}
