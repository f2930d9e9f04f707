// `tfgate run-task configure`: flags and environment → options. The HMAC key is read from
// TFGATE_RUN_TASK_HMAC_KEY only: a secret never goes on a command line.
import { nonEmpty } from '../../options/common.js';
import type * as z from '../../schemas/zod.js';
import { type ManagementFlags, normaliseManagement, type OutputFormat } from './management.js';

export function normaliseRunTaskConfigure<S extends z.ZodMiniObject>(
  schema: S,
  flags: ManagementFlags,
  env: NodeJS.ProcessEnv,
): { options: z.output<S>; format: OutputFormat } {
  return normaliseManagement(
    schema,
    { ...flags, generateKey: flags.generateKey === true, hmacKey: nonEmpty(env.TFGATE_RUN_TASK_HMAC_KEY) },
    env,
    { minSeverity: '--min-severity', generateKey: '--generate-key', hmacKey: 'TFGATE_RUN_TASK_HMAC_KEY' },
  );
}
