// `tfgate gate`: flags and environment → GateOptions, parsed once. There is no key flag: TFGATE_API_KEY.
import { CLIENT_FLAG_NAMES } from '../../client/config.js';
import { type GateOptions, gateOptionsSchema } from '../../commands/gate.js';
import { UsageError } from '../../errors/index.js';
import { nonEmpty, parseOptions } from '../../options/common.js';
import { GivenSettings } from './given.js';
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
  design?: string;
}

export function normaliseGateOptions(flags: GateFlags, env: NodeJS.ProcessEnv): GateOptions {
  if (flags.package === undefined && nonEmpty(env.TFGATE_PACKAGE) === undefined) {
    throw new UsageError('package_required', 'tfgate gate needs the package to gate: --package <id>', {
      hint: 'e.g. tfgate gate --package payments --min-severity high (or set TFGATE_PACKAGE)',
    });
  }
  const given = new GivenSettings(env, {
    ...CLIENT_FLAG_NAMES,
    ...DECISION_FLAG_NAMES,
    packageId: '--package',
    designFile: '--design',
  });
  const input = {
    packageId: given.text('packageId', flags.package, 'TFGATE_PACKAGE'),
    refresh: flags.refresh ?? false,
    ...decisionInput(flags, given),
    client: clientInput(flags),
    designFile: flags.design,
  };
  return parseOptions(gateOptionsSchema, input, given.flagNames);
}
