// `tfgate check`: flags and environment → CheckOptions, parsed once. Flags win over the environment.
import { type CheckOptions, checkOptionsSchema } from '../../commands/check.js';
import { UsageError } from '../../errors/index.js';
import { parseOptions } from '../../options/common.js';
import { ROUTE_FLAG_NAMES, type RouteFlags, routeInputFromFlags } from './route.js';
import { DECISION_FLAG_NAMES, type DecisionFlags, decisionInput } from './shared.js';

/** The flags as commander hands them over (repeatable ones as arrays). */
export interface CheckFlags extends RouteFlags, DecisionFlags {
  planJson?: string;
  planFile?: string;
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
  approvedFindings: '--approved-findings',
  configDir: '--config-dir',
  repositoryRoot: '--repository-root',
};

export function normaliseCheckOptions(flags: CheckFlags, env: NodeJS.ProcessEnv): CheckOptions {
  const planInputs = [flags.planJson !== undefined, flags.planFile !== undefined].filter(Boolean);
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
      ...decisionInput(flags, env),
      customPolicyCheck: flags.customPolicyCheck ?? false,
      approvedFindings: flags.approvedFindings,
      configDir: flags.configDir,
      repositoryRoot: flags.repositoryRoot,
    },
    CHECK_FLAG_NAMES,
  );
}
