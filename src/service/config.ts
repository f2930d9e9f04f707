// The service's settings: every flag has an environment variable, normalised by one zod schema.
import { statSync } from 'node:fs';
import { parseOptions } from '../errors/options.js';
import * as z from '../schemas/zod.js';
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
export const durationSchema = z.pipe(
  z.union([z.number().check(z.nonnegative()), z.string()]),
  z.transform((value: number | string, ctx) => {
    if (typeof value === 'number') return value * 1000;
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(value);
    if (!match) {
      ctx.issues.push({
        code: 'custom',
        message: `"${value}" is not a duration; use e.g. 500ms, 30s, 15m or 1h`,
        input: value,
      });
      return z.NEVER;
    }
    return Math.round(Number(match[1]) * DURATION_UNITS[(match[2] ?? 's').toLowerCase()]!);
  }),
);

/** "512MiB", "1GiB", "100MB"; a bare number is bytes. */
export const sizeSchema = z.pipe(
  z.union([z.number().check(z.int(), z.positive()), z.string()]),
  z.transform((value: number | string, ctx) => {
    if (typeof value === 'number') return value;
    const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]i?b|b)?\s*$/i.exec(value);
    if (!match) {
      ctx.issues.push({
        code: 'custom',
        message: `"${value}" is not a size; use e.g. 1048576, 100MB or 512MiB`,
        input: value,
      });
      return z.NEVER;
    }
    return Math.round(Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toLowerCase()]!);
  }),
);

/** A duration that must not be 0: a limit that would otherwise mean waiting for ever. */
const limitSchema = z.pipe(
  durationSchema,
  z
    .number()
    .check(z.positive('must be more than 0 (a limit of 0 would wait for ever); use e.g. 500ms, 10s or 1m')),
);

export { SERVE_SETTINGS } from './serve-settings.js';

/** "s3,pg", or "none": the backend types drift checks may read. */
const stateBackendsSchema = z.pipe(
  z.pipe(
    z.string(),
    z.transform((value: string) =>
      value.trim() === 'none'
        ? []
        : value
            .split(',')
            .map((t) => t.trim())
            .filter((t) => t !== ''),
    ),
  ),
  z.array(
    z.enum(STATE_BACKEND_TYPES, {
      error: (issue) =>
        `"${String(issue.input)}" is not a state backend; use some of ${STATE_BACKEND_TYPES.join(', ')}`,
    }),
  ),
);

/** HCP Terraform / Terraform Enterprise origins, comma separated: each scheme, host and port only. */
const allowedOriginsSchema = z.pipe(
  z.string(),
  z.transform((value: string, ctx) => {
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
        ctx.issues.push({
          code: 'custom',
          message: `"${item}" is not an origin; give scheme, host and port only, e.g. https://app.terraform.io or https://tfe.example.com`,
          input: value,
        });
        return z.NEVER;
      }
      origins.push(url.origin);
    }
    return origins;
  }),
);

/**
 * A PostgreSQL URL, postgres:// or postgresql:// (what node-postgres reads; it read "not a url" as the host
 * "base" and tried a mysql:// URL as PostgreSQL). Messages never repeat the URL: it may hold a password.
 */
const databaseUrlSchema = z.string().check(
  z.minLength(1),
  z.superRefine((value: string, ctx) => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url !== undefined && (url.protocol === 'postgres:' || url.protocol === 'postgresql:')) return;
    const scheme = url === undefined ? undefined : url.protocol.replace(/:$/, '');
    const given =
      scheme === undefined
        ? 'is not a URL'
        : `is a ${/^[a-z][a-z0-9+.-]{0,30}$/i.test(scheme) ? `${scheme}:` : 'non-PostgreSQL'} URL, and tfgate serve stores in PostgreSQL only`;
    ctx.addIssue({
      code: 'custom',
      message: `${given}: give postgres://user@host:5432/database (or postgresql://…; the password in it or in PGPASSWORD), or leave it unset for the embedded store in --data-dir`,
      input: undefined,
    });
  }),
);

export const serveConfigSchema = z.strictObject({
  host: z.string().check(z.minLength(1)),
  port: z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)),
  dataDir: z.string().check(z.minLength(1)),
  embeddedSync: z.enum(['normal', 'full']),
  databaseUrl: z.optional(databaseUrlSchema),
  databaseConnectTimeout: limitSchema,
  driftInterval: durationSchema,
  driftCheckTimeout: durationSchema,
  stateBackends: stateBackendsSchema,
  stateReadTimeout: durationSchema,
  terraformBin: z.string().check(z.minLength(1)),
  maxBody: sizeSchema,
  rateLimit: z.coerce.number().check(z.nonnegative()),
  rateBurst: z.optional(z.coerce.number().check(z.int(), z.positive())),
  addressLimits: z.enum(['on', 'off']),
  requestTimeout: durationSchema,
  shutdownTimeout: durationSchema,
  signingKeyFile: z.optional(
    z.string().check(
      z.minLength(1),
      // Never repeated in the message: a key pasted where its path goes is a secret.
      z.refine((value) => !value.includes('-----BEGIN'), {
        message:
          "holds a key's text, not the path of a key file (not shown): write the key to a file only tfgate can read (chmod 600) and give its path",
        abort: true,
      }),
      z.refine((path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true, {
        message: 'is not a file: give the path of the RSA private key (PEM) that signs bundles',
      }),
    ),
  ),
  instanceId: z.optional(z.string().check(z.minLength(1))),
  runTaskAllowedOrigins: allowedOriginsSchema,
  runTaskLease: durationSchema,
  publicUrl: z.optional(
    z.url({
      protocol: /^https?$/,
      error:
        'is not an http(s) URL; give the URL HCP Terraform reaches the service at, e.g. https://tfgate.example.com',
    }),
  ),
  logLevel: z.enum(['info', 'warn', 'error', 'silent']),
  /** From TFGATE_BOOTSTRAP_API_KEY only: a secret never goes on a command line. */
  bootstrapApiKey: z.optional(
    z
      .string()
      .check(z.minLength(16, 'must be at least 16 characters; generate one with `openssl rand -hex 24`')),
  ),
  /** Largest JSON or design body (acknowledgements, admin calls, designs). */
  maxJsonBody: z._default(sizeSchema, 1024 * 1024),
});

export type ServeConfig = z.output<typeof serveConfigSchema>;

/** Option path → how the user wrote it: the flag, and its variable. */
export const SERVE_OPTION_NAMES: Readonly<Record<string, string>> = Object.fromEntries([
  ...SERVE_SETTINGS.map((s) => [
    s.key,
    `${s.flag.split(' ')[0]} (env ${s.env}${s.key === 'databaseUrl' ? ' or DATABASE_URL' : ''})`,
  ]),
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
