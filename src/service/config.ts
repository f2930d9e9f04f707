// The service's settings: every flag has an environment variable, normalised by one zod schema.
import { z } from 'zod';
import { parseOptions } from '../errors/options.js';
import { SERVE_SETTINGS } from './serve-settings.js';
import { STATE_BACKEND_TYPES } from './types.js';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** "15m", "30s", "500ms", "2h"; a bare number is seconds. */
export const durationSchema = z.union([z.number().nonnegative(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value * 1000;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(value);
  if (!match) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration; use e.g. 500ms, 30s, 15m or 1h` });
    return z.NEVER;
  }
  return Math.round(Number(match[1]) * DURATION_UNITS[(match[2] ?? 's').toLowerCase()]!);
});

/** "512MiB", "1GiB", "100MB"; a bare number is bytes. */
export const sizeSchema = z.union([z.number().int().positive(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]i?b|b)?\s*$/i.exec(value);
  if (!match) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a size; use e.g. 1048576, 100MB or 512MiB` });
    return z.NEVER;
  }
  return Math.round(Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toLowerCase()]!);
});

export { SERVE_SETTINGS } from './serve-settings.js';

export const serveConfigSchema = z
  .object({
    host: z.string().min(1),
    port: z.coerce.number().int().min(0).max(65535),
    dataDir: z.string().min(1),
    embeddedSync: z.enum(['normal', 'full']),
    databaseUrl: z.string().min(1).optional(),
    driftInterval: durationSchema,
    driftCheckTimeout: durationSchema,
    stateBackends: z
      .string()
      .transform((value) =>
        value.trim() === 'none'
          ? []
          : value
              .split(',')
              .map((t) => t.trim())
              .filter((t) => t !== ''),
      )
      .pipe(
        z.array(
          z.enum(STATE_BACKEND_TYPES, {
            error: (issue) =>
              `"${String(issue.input)}" is not a state backend; use some of ${STATE_BACKEND_TYPES.join(', ')}`,
          }),
        ),
      ),
    stateReadTimeout: durationSchema,
    terraformBin: z.string().min(1),
    maxBody: sizeSchema,
    rateLimit: z.coerce.number().nonnegative(),
    rateBurst: z.coerce.number().int().positive().optional(),
    addressLimits: z.enum(['on', 'off']),
    requestTimeout: durationSchema,
    shutdownTimeout: durationSchema,
    signingKeyFile: z.string().min(1).optional(),
    instanceId: z.string().min(1).optional(),
    runTaskAllowedOrigins: z.string().transform((value, ctx) => {
      const origins: string[] = [];
      for (const item of value
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean)) {
        let url: URL | undefined;
        try {
          url = new URL(item);
        } catch {
          url = undefined;
        }
        if (
          !url ||
          (url.protocol !== 'https:' && url.protocol !== 'http:') ||
          url.origin !== item.replace(/\/$/, '')
        ) {
          ctx.addIssue({
            code: 'custom',
            message: `"${item}" is not an origin; give scheme, host and port only, e.g. https://app.terraform.io or https://tfe.example.com`,
          });
          return z.NEVER;
        }
        origins.push(url.origin);
      }
      return origins;
    }),
    runTaskLease: durationSchema,
    publicUrl: z
      .url({
        protocol: /^https?$/,
        error:
          'is not an http(s) URL; give the URL HCP Terraform reaches the service at, e.g. https://tfgate.example.com',
      })
      .optional(),
    logLevel: z.enum(['info', 'warn', 'error', 'silent']),
    /** From TFGATE_BOOTSTRAP_API_KEY only: a secret never goes on a command line. */
    bootstrapApiKey: z
      .string()
      .min(16, 'must be at least 16 characters; generate one with `openssl rand -hex 24`')
      .optional(),
    /** Largest JSON or design body (acknowledgements, admin calls, designs). */
    maxJsonBody: sizeSchema.default(1024 * 1024),
  })
  .strict();

export type ServeConfig = z.output<typeof serveConfigSchema>;

/** Option path → how the user wrote it: the flag, and its variable. */
export const SERVE_OPTION_NAMES: Readonly<Record<string, string>> = Object.fromEntries([
  ...SERVE_SETTINGS.map((s) => [s.key, `${s.flag.split(' ')[0]} (env ${s.env})`]),
  ['bootstrapApiKey', 'TFGATE_BOOTSTRAP_API_KEY'],
]);

/** Flags win over the environment, which wins over defaults. */
export function resolveServeConfig(
  flags: Partial<Record<string, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
): ServeConfig {
  const raw: Record<string, unknown> = {};
  for (const setting of SERVE_SETTINGS) {
    const fromEnv =
      env[setting.env] ?? (setting.key === 'databaseUrl' ? env.DATABASE_URL : undefined) ?? undefined;
    const value = flags[setting.key] ?? (fromEnv === '' ? undefined : fromEnv) ?? setting.default;
    if (value !== undefined) raw[setting.key] = value;
  }
  if (env.TFGATE_BOOTSTRAP_API_KEY) raw.bootstrapApiKey = env.TFGATE_BOOTSTRAP_API_KEY;
  // Plain words, never the schema library's (a short bootstrap key was "internal error: [zod JSON]").
  return parseOptions(
    serveConfigSchema,
    raw,
    SERVE_OPTION_NAMES,
    'run tfgate serve --help to see the settings',
  );
}
