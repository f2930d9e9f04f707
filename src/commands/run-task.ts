// `tfgate run-task configure|show`: a package's HCP Terraform / Terraform Enterprise run task through the
// management API. The HMAC key comes from TFGATE_RUN_TASK_HMAC_KEY (never a flag: a secret stays off the
// command line) or is generated here; the service stores it sealed and never returns it.
import { randomBytes } from 'node:crypto';
import { packagePath } from '../client/index.js';
import { UsageError } from '../errors/index.js';
import { packageIdSchema, serviceConnectionSchema } from '../options/common.js';
import { severitySchema } from '../schemas/contract.js';
import * as z from '../schemas/zod.js';
import { callService, type ManagementContext, packageRefusals } from './management.js';

export const runTaskConfigureOptionsSchema = z.extend(serviceConnectionSchema, {
  packageId: packageIdSchema,
  minSeverity: z.optional(severitySchema),
  generateKey: z._default(z.boolean(), false),
  /** From TFGATE_RUN_TASK_HMAC_KEY only. */
  hmacKey: z.optional(z.string()),
});
export type RunTaskConfigureOptions = z.output<typeof runTaskConfigureOptionsSchema>;

export const runTaskShowOptionsSchema = z.extend(serviceConnectionSchema, { packageId: packageIdSchema });
export type RunTaskShowOptions = z.output<typeof runTaskShowOptionsSchema>;

const runTaskViewSchema = z.object({
  package_id: z.string(),
  configured: z.boolean(),
  min_severity: z.optional(severitySchema),
  url: z.string(),
  allowed_origins: z.array(z.string()),
  created_at: z.optional(z.string()),
  updated_at: z.optional(z.string()),
});
export type RunTaskView = z.output<typeof runTaskViewSchema>;

/** As --format json prints it; `hmac_key` only when this command generated it (shown this once). */
export interface RunTaskConfigured extends RunTaskView {
  hmac_key?: string;
}

/** HCP Terraform's HMAC keys are free text; 32 random bytes, base64url: 43 characters. */
const generateKey = () => randomBytes(32).toString('base64url');

export async function runTaskConfigure(
  options: RunTaskConfigureOptions,
  context: ManagementContext,
): Promise<RunTaskConfigured> {
  if (options.generateKey && options.hmacKey !== undefined) {
    throw new UsageError(
      'run_task_key_twice',
      'both --generate-key and TFGATE_RUN_TASK_HMAC_KEY are given; which key should HCP Terraform get?',
      { hint: 'unset TFGATE_RUN_TASK_HMAC_KEY to generate a key, or drop --generate-key to use it' },
    );
  }
  if (!options.generateKey && options.hmacKey === undefined) {
    throw new UsageError('run_task_key_missing', 'no HMAC key for the run task', {
      hint: 'set TFGATE_RUN_TASK_HMAC_KEY (at least 32 characters, from your secret store), or pass --generate-key',
    });
  }
  const hmacKey = options.hmacKey ?? generateKey();
  if (hmacKey.length < 32 || !/^[\x21-\x7e]+$/.test(hmacKey)) {
    throw new UsageError(
      'run_task_key_invalid',
      'TFGATE_RUN_TASK_HMAC_KEY must be at least 32 visible ASCII characters (no spaces)',
      { hint: 'generate one with: openssl rand -hex 32, or pass --generate-key instead' },
    );
  }
  const { packageId } = options;
  const view = await callService(
    options,
    context,
    {
      request: {
        operation: 'run task configuration',
        method: 'PUT',
        path: packagePath(packageId, 'run-task'),
        packageId,
      },
      json: { hmac_key: hmacKey, ...(options.minSeverity ? { min_severity: options.minSeverity } : {}) },
      what: 'configuring the run task',
      status: [200, 201],
      schema: runTaskViewSchema,
    },
    packageRefusals(packageId, 'compliance:write'),
  );
  return options.generateKey ? { ...view, hmac_key: hmacKey } : view;
}

export function runTaskShow(options: RunTaskShowOptions, context: ManagementContext): Promise<RunTaskView> {
  const { packageId } = options;
  return callService(
    options,
    context,
    {
      request: {
        operation: 'run task read',
        method: 'GET',
        path: packagePath(packageId, 'run-task'),
        packageId,
      },
      what: 'reading the run task',
      status: 200,
      schema: runTaskViewSchema,
    },
    packageRefusals(packageId, 'compliance:read'),
  );
}
