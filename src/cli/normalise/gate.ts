// `tfgate gate`: flags and environment → GateOptions, parsed once. There is no key flag: TFGATE_API_KEY.
import { CLIENT_FLAG_NAMES } from '../../client/config.js';
import { type GateOptions, gateOptionsSchema } from '../../commands/gate.js';
import { nonEmpty, parseOptions } from '../../options/common.js';
import {
  clientInput,
  DECISION_FLAG_NAMES,
  type DecisionFlags,
  decisionInput,
  type ServiceFlags,
} from './shared.js';

export interface GateFlags extends DecisionFlags, ServiceFlags {
  package?: string;
  refresh?: boolean;
}

export function normaliseGateOptions(flags: GateFlags, env: NodeJS.ProcessEnv): GateOptions {
  return parseOptions(
    gateOptionsSchema,
    {
      packageId: flags.package ?? nonEmpty(env.TFGATE_PACKAGE),
      refresh: flags.refresh ?? false,
      ...decisionInput(flags, env),
      client: clientInput(flags),
    },
    { ...CLIENT_FLAG_NAMES, ...DECISION_FLAG_NAMES, packageId: '--package' },
  );
}
