// The aspect's options: zod schemas, parsed once per constructor; a failure is a UsageError like every
// other option's (invalid_option, exit 1), naming the constructor and the option.
import { closest } from '../errors/closest.js';
import { UsageError } from '../errors/index.js';
import { plainIssueMessage } from '../errors/options.js';
import { SEVERITIES } from '../model/index.js';
import type { PublicKeySource } from '../policy/bundle/index.js';
import * as z from '../schemas/zod.js';

const conformanceOptions = {
  /** Findings become warnings: synth never fails because of them. */
  advisory: z._default(z.boolean(), false),
  /** Findings below this severity are warnings, not errors. Default `low`: every finding blocks. */
  minSeverity: z._default(z.enum(SEVERITIES), 'low'),
};
const conformanceOptionsSchema = z.object(conformanceOptions);

const pemSchema = z.union([z.string().check(z.minLength(1)), z.instanceof(Uint8Array)]);

export const fromBundleOptionsSchema = z.strictObject({
  ...conformanceOptions,
  /** The platform public key: PEM text, or the path of a PEM file. */
  publicKey: z.optional(pemSchema),
  /** Refuse a bundle built for another package. */
  packageId: z.optional(z.string().check(z.minLength(1))),
  /** Refuse a bundle built for another service account's package (one platform key signs them all). */
  account: z.optional(z.string().check(z.minLength(1))),
  /** Accept an unsigned bundle. INSECURE: for local experiments only; a loud warning is printed. */
  allowUnsigned: z._default(z.boolean(), false),
});

export const fromServiceOptionsSchema = z.strictObject({
  ...conformanceOptions,
  packageId: z.string().check(z.minLength(1)),
  /** Default: TFGATE_BASE_URL. */
  baseUrl: z.optional(z.string().check(z.minLength(1))),
  /** Default: TFGATE_API_KEY (from the pipeline's secret store). Never printed. */
  apiKey: z.optional(z.string().check(z.minLength(1))),
  /** Pin the platform public key (PEM text or path) instead of fetching it from the same service. */
  publicKey: z.optional(pemSchema),
  /** A CA bundle (PEM file) for a service behind a private CA; NODE_EXTRA_CA_CERTS works too. */
  caFile: z.optional(z.string().check(z.minLength(1))),
});

export const fromDesignOptionsSchema = z.strictObject(conformanceOptions);

export type ConformanceOptions = z.input<typeof conformanceOptionsSchema>;
export type ParsedConformanceOptions = z.output<typeof conformanceOptionsSchema>;
export type FromBundleOptions = z.input<typeof fromBundleOptionsSchema>;
export type FromServiceOptions = z.input<typeof fromServiceOptionsSchema>;
export type FromDesignOptions = z.input<typeof fromDesignOptionsSchema>;

/**
 * Parse a constructor's options. A failure is the UsageError every option of tfgate's raises (code
 * invalid_option, exit 1), naming the constructor (`where`) and each option at fault.
 */
export function parseAspectOptions<S extends z.ZodMiniObject>(
  schema: S,
  input: unknown,
  where: string,
): z.output<S> {
  // Plain words (plainIssueMessage), never the schema library's; a misspelt option says which it meant.
  const parsed = schema.safeParse(input ?? {}, { error: plainIssueMessage });
  if (parsed.success) return parsed.data;
  const known = Object.keys(schema.shape);
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys
        .map((key) => {
          const near = closest(key, known);
          return `${where}: unknown option "${key}"${near ? ` (did you mean "${near}"?)` : ''}; the options are ${known.join(', ')}`;
        })
        .join('; ');
    }
    return `${where}: ${issue.path.join('.') || 'options'}: ${issue.message}`;
  });
  throw new UsageError('invalid_option', problems.join('; '), {
    hint: "see the README's CDKTF section for the aspect's options",
  });
}

/** The public key as given: PEM text or bytes, or the path of a PEM file. */
export function publicKeySource(value: string | Uint8Array): PublicKeySource {
  return typeof value === 'string' && !value.includes('-----BEGIN') ? { path: value } : { pem: value };
}
