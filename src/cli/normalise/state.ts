// `tfgate state push`: flags and environment → StatePushOptions and the output format, parsed once.
// --package falls back to TFGATE_PACKAGE, as for the gate and the management commands a release job runs beside it.
import { type StatePushOptions, statePushOptionsSchema } from '../../commands/state-push.js';
import { parseOptions } from '../../options/common.js';
import * as z from '../../schemas/zod.js';
import { GivenSettings } from './given.js';
import { type OutputFormat, outputFormatSchema } from './management.js';

export interface StatePushFlags {
  package?: string;
  stateJson?: string;
  chdir?: string;
  terraformBin?: string;
  baseUrl?: string;
  caFile?: string;
  format?: string;
}

const statePushCliSchema = z.extend(statePushOptionsSchema, { format: outputFormatSchema });

export function normaliseStatePushOptions(
  flags: StatePushFlags,
  env: NodeJS.ProcessEnv,
): { options: StatePushOptions; format: OutputFormat } {
  const given = new GivenSettings(env, {
    package: '--package',
    stateJson: '--state-json',
    chdir: '--chdir',
    terraformBin: '--terraform-bin',
    baseUrl: '--base-url',
    caFile: '--ca-file',
    format: '--format',
  });
  const input = {
    ...flags,
    package: given.text('package', flags.package, 'TFGATE_PACKAGE'),
    terraformBin: given.text('terraformBin', flags.terraformBin, 'TFGATE_TERRAFORM_BIN'),
  };
  const { format, ...options } = parseOptions(statePushCliSchema, input, given.flagNames);
  return { options, format };
}
