// `tfgate plan` and `tfgate apply`: flags, the terraform arguments after --, and environment → their
// options, parsed once. The route, severity and report flags mean what they mean for `tfgate check`.
import { type ApplyOptions, applyOptionsSchema } from '../../commands/apply.js';
import { type PlanOptions, planOptionsSchema } from '../../commands/plan.js';
import { parseOptions } from '../../options/common.js';
import { ROUTE_FLAG_NAMES, type RouteFlags, routeInputFromFlags } from './route.js';
import { DECISION_FLAG_NAMES, type DecisionFlags, decisionInput } from './shared.js';

/** The flags `tfgate plan` and `tfgate apply` share, as commander hands them over. */
export interface WrapperFlags extends RouteFlags, DecisionFlags {
  terraformBin?: string;
  chdir?: string;
  cdktfStack?: string;
}

const WRAPPER_FLAG_NAMES: Readonly<Record<string, string>> = {
  ...ROUTE_FLAG_NAMES,
  ...DECISION_FLAG_NAMES,
  terraformBin: '--terraform-bin',
  chdir: '--chdir',
  cdktfStack: '--cdktf-stack',
  terraformArgs: 'terraform plan arguments (after --)',
  out: '--out',
  planFile: '--plan-file',
};

function wrapperInput(flags: WrapperFlags, terraformArgs: string[], env: NodeJS.ProcessEnv) {
  return {
    route: routeInputFromFlags(flags, env),
    terraformBin: flags.terraformBin,
    chdir: flags.chdir,
    cdktfStack: flags.cdktfStack,
    terraformArgs,
    ...decisionInput(flags, env),
  };
}

export function normalisePlanOptions(
  flags: WrapperFlags & { out?: string },
  terraformArgs: string[],
  env: NodeJS.ProcessEnv,
): PlanOptions {
  const input = { ...wrapperInput(flags, terraformArgs, env), out: flags.out };
  return parseOptions(planOptionsSchema, input, WRAPPER_FLAG_NAMES);
}

export function normaliseApplyOptions(
  flags: WrapperFlags & { planFile?: string },
  terraformArgs: string[],
  env: NodeJS.ProcessEnv,
): ApplyOptions {
  const input = { ...wrapperInput(flags, terraformArgs, env), planFile: flags.planFile };
  return parseOptions(applyOptionsSchema, input, WRAPPER_FLAG_NAMES);
}
