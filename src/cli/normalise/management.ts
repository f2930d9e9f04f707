// The management commands (design, findings, audit, keys list/revoke, accounts): flags and environment →
// the command's options and the output format, parsed once. --package falls back to TFGATE_PACKAGE.
import { parseOptions } from '../../options/common.js';
import * as z from '../../schemas/zod.js';
import { GivenSettings } from './given.js';

export interface ManagementFlags {
  package?: string;
  format?: string;
  baseUrl?: string;
  caFile?: string;
  [flag: string]: unknown;
}

export const OUTPUT_FORMATS = ['text', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const outputFormatSchema = z._default(z.enum(OUTPUT_FORMATS), 'text');

/** How the user wrote each option, for usage errors. */
const FLAG_NAMES: Readonly<Record<string, string>> = {
  packageId: '--package',
  baseUrl: '--base-url',
  caFile: '--ca-file',
  format: '--format',
};

/**
 * `flags` minus --package and --format become the options (with `packageId`); `names` adds how the
 * command's own options are written (`findingId: '<finding-id>'`).
 */
export function normaliseManagement<S extends z.ZodMiniObject>(
  schema: S,
  flags: ManagementFlags,
  env: NodeJS.ProcessEnv,
  names: Readonly<Record<string, string>> = {},
): { options: z.output<S>; format: OutputFormat } {
  const { package: packageFlag, format, ...rest } = flags;
  const given = new GivenSettings(env, { ...FLAG_NAMES, ...names });
  const inSchema = 'packageId' in schema.shape;
  const packageId = inSchema
    ? given.text('packageId', packageFlag as string | undefined, 'TFGATE_PACKAGE')
    : undefined;
  const parsed = parseOptions(
    z.extend(schema, { format: outputFormatSchema }),
    { ...rest, ...(inSchema ? { packageId } : {}), format },
    given.flagNames,
  ) as z.output<S> & { format: OutputFormat };
  const { format: chosen, ...options } = parsed;
  return { options: options as z.output<S>, format: chosen };
}
