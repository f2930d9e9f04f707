// `tfgate state push`: flags and environment → StatePushOptions, parsed once.
import { type StatePushOptions, statePushOptionsSchema } from '../../commands/state-push.js';
import { nonEmpty, parseOptions } from '../../options/common.js';

export interface StatePushFlags {
  package?: string;
  stateJson?: string;
  chdir?: string;
  terraformBin?: string;
  baseUrl?: string;
  caFile?: string;
}

export function normaliseStatePushOptions(flags: StatePushFlags, env: NodeJS.ProcessEnv): StatePushOptions {
  return parseOptions(
    statePushOptionsSchema,
    { ...flags, terraformBin: flags.terraformBin ?? nonEmpty(env.TFGATE_TERRAFORM_BIN) },
    {
      package: '--package',
      stateJson: '--state-json',
      chdir: '--chdir',
      terraformBin: '--terraform-bin',
      baseUrl: '--base-url',
      caFile: '--ca-file',
    },
  );
}
