// The aspect's options: zod schemas, parsed once per constructor; a failure is a UsageError like every
// other option's (invalid_option, exit 1), naming the constructor and the option.
import { z } from 'zod';
import { UsageError } from '../errors/index.js';
import { SEVERITIES } from '../model/index.js';
import type { PublicKeySource } from '../policy/bundle/index.js';

const conformanceOptionsSchema = z.object({
  /** Findings become warnings: synth never fails because of them. */
  advisory: z.boolean().default(false),
  /** Findings below this severity are warnings, not errors. Default `low`: every finding blocks. */
  minSeverity: z.enum(SEVERITIES).default('low'),
});

const pemSchema = z.union([z.string().min(1), z.instanceof(Uint8Array)]);

export const fromBundleOptionsSchema = conformanceOptionsSchema
  .extend({
    /** The platform public key: PEM text, or the path of a PEM file. */
    publicKey: pemSchema.optional(),
    /** Refuse a bundle built for another package. */
    packageId: z.string().min(1).optional(),
    /** Accept an unsigned bundle. INSECURE: for local experiments only; a loud warning is printed. */
    allowUnsigned: z.boolean().default(false),
  })
  .strict();

export const fromServiceOptionsSchema = conformanceOptionsSchema
  .extend({
    packageId: z.string().min(1),
    /** Default: TFGATE_BASE_URL. */
    baseUrl: z.string().min(1).optional(),
    /** Default: TFGATE_API_KEY (from the pipeline's secret store). Never printed. */
    apiKey: z.string().min(1).optional(),
    /** Pin the platform public key (PEM text or path) instead of fetching it from the same service. */
    publicKey: pemSchema.optional(),
    /** A CA bundle (PEM file) for a service behind a private CA; NODE_EXTRA_CA_CERTS works too. */
    caFile: z.string().min(1).optional(),
  })
  .strict();

export const fromDesignOptionsSchema = conformanceOptionsSchema.strict();

export type ConformanceOptions = z.input<typeof conformanceOptionsSchema>;
export type ParsedConformanceOptions = z.output<typeof conformanceOptionsSchema>;
export type FromBundleOptions = z.input<typeof fromBundleOptionsSchema>;
export type FromServiceOptions = z.input<typeof fromServiceOptionsSchema>;
export type FromDesignOptions = z.input<typeof fromDesignOptionsSchema>;

/**
 * Parse a constructor's options. A failure is the UsageError every option of tfgate's raises (code
 * invalid_option, exit 1), naming the constructor (`where`) and each option at fault.
 */
export function parseAspectOptions<S extends z.ZodObject>(
  schema: S,
  input: unknown,
  where: string,
): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${where}: ${issue.path.join('.') || 'options'}: ${issue.message}`,
  );
  throw new UsageError('invalid_option', problems.join('; '), {
    hint: "see the README's CDKTF section for the aspect's options",
  });
}

/** The public key as given: PEM text or bytes, or the path of a PEM file. */
export function publicKeySource(value: string | Uint8Array): PublicKeySource {
  return typeof value === 'string' && !value.includes('-----BEGIN') ? { path: value } : { pem: value };
}
