// The service's settings: every flag has an environment variable, normalised by one zod schema.
import { z } from 'zod';
import { parseOptions } from '../errors/options.js';
import { DEFAULT_STATE_BACKENDS, STATE_BACKEND_TYPES } from './types.js';

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

/** Each setting: its flag, its environment variable, its default and what it does (the --help text). */
export const SERVE_SETTINGS = [
  {
    key: 'host',
    flag: '--host <host>',
    env: 'TFGATE_HOST',
    default: '127.0.0.1',
    help: 'address to listen on',
  },
  {
    key: 'port',
    flag: '--port <port>',
    env: 'TFGATE_PORT',
    default: '8080',
    help: 'port to listen on (0 picks a free one)',
  },
  {
    key: 'dataDir',
    flag: '--data-dir <dir>',
    env: 'TFGATE_DATA_DIR',
    default: './.tfgate/data',
    help: 'embedded store (SQLite) and signing key directory; ignored with --database-url',
  },
  {
    key: 'embeddedSync',
    flag: '--embedded-sync <mode>',
    env: 'TFGATE_EMBEDDED_SYNC',
    // full by default: an answered acknowledgement or audited decision must survive a power loss too, as
    // PostgreSQL's default (synchronous_commit on) does; normal is a measured, documented opt-in for speed.
    default: 'full',
    help:
      'embedded store commits: full (fsync on every commit: an answered write survives kill -9, an OS crash ' +
      'and a power loss) or normal (faster; survives kill -9 and any crash of tfgate, but a power loss or OS ' +
      'crash may lose the last commits)',
  },
  {
    key: 'databaseUrl',
    flag: '--database-url <url>',
    env: 'TFGATE_DATABASE_URL',
    default: undefined,
    help: 'PostgreSQL connection string (also DATABASE_URL); many instances may share one database',
  },
  {
    key: 'driftInterval',
    flag: '--drift-interval <duration>',
    env: 'TFGATE_DRIFT_INTERVAL',
    default: '15m',
    help: 'how often each approved package with observed state or a state source gets a scheduled drift check (0 turns it off)',
  },
  {
    key: 'driftCheckTimeout',
    flag: '--drift-check-timeout <duration>',
    env: 'TFGATE_DRIFT_CHECK_TIMEOUT',
    default: '30s',
    help: 'time limit of one drift check; a gate whose check runs past it answers 504 drift_check_timeout',
  },
  {
    key: 'stateBackends',
    flag: '--state-backends <list>',
    env: 'TFGATE_STATE_BACKENDS',
    default: DEFAULT_STATE_BACKENDS.join(','),
    help: 'state backends packages may name, comma-separated, or none; `local` (files on this host) only when listed',
  },
  {
    key: 'stateReadTimeout',
    flag: '--state-read-timeout <duration>',
    env: 'TFGATE_STATE_READ_TIMEOUT',
    default: '2m',
    help: 'time limit of reading a state from its backend (init, state pull); past it 504 drift_check_timeout',
  },
  {
    key: 'terraformBin',
    flag: '--terraform-bin <bin>',
    env: 'TFGATE_TERRAFORM_BIN',
    default: 'terraform',
    help: 'terraform or tofu (or a path) that reads states from backends',
  },
  {
    key: 'maxBody',
    flag: '--max-body <size>',
    env: 'TFGATE_MAX_BODY',
    default: '512MiB',
    help: 'largest plan or state upload; larger answers 413 payload_too_large',
  },
  {
    key: 'rateLimit',
    flag: '--rate-limit <per-second>',
    env: 'TFGATE_RATE_LIMIT',
    default: '100',
    help: 'requests per second per API key, per instance (0 turns it off); over it answers 429 with Retry-After',
  },
  {
    key: 'rateBurst',
    flag: '--rate-burst <requests>',
    env: 'TFGATE_RATE_BURST',
    default: undefined,
    help: 'requests a key may make at once before the rate limit applies (default: twice --rate-limit)',
  },
  {
    key: 'addressLimits',
    flag: '--address-limits <on|off>',
    env: 'TFGATE_ADDRESS_LIMITS',
    default: 'on',
    help: 'limits per client address on failed dashboard sign-ins and refused run task requests; off behind a reverse proxy (every client is its address) that limits them itself',
  },
  {
    key: 'requestTimeout',
    flag: '--request-timeout <duration>',
    env: 'TFGATE_REQUEST_TIMEOUT',
    default: '5m',
    help: 'time limit for receiving a whole request, body included',
  },
  {
    key: 'shutdownTimeout',
    flag: '--shutdown-timeout <duration>',
    env: 'TFGATE_SHUTDOWN_TIMEOUT',
    default: '30s',
    help: 'on SIGTERM/SIGINT, how long in-flight requests may take to finish',
  },
  {
    key: 'signingKeyFile',
    flag: '--signing-key-file <pem>',
    env: 'TFGATE_SIGNING_KEY_FILE',
    default: undefined,
    help: 'RSA private key (PEM) that signs bundles; default: generated on first start (data dir, or the database)',
  },
  {
    key: 'instanceId',
    flag: '--instance-id <id>',
    env: 'TFGATE_INSTANCE_ID',
    default: undefined,
    help: 'name of this instance in logs and drift-check records (default: host name and pid)',
  },
  {
    key: 'runTaskAllowedOrigins',
    flag: '--run-task-allowed-origins <origins>',
    env: 'TFGATE_RUN_TASK_ALLOWED_ORIGINS',
    default: 'https://app.terraform.io',
    help: 'HCP Terraform / Terraform Enterprise origins a run task may fetch plans from and call back (comma-separated)',
  },
  {
    key: 'runTaskLease',
    flag: '--run-task-lease <duration>',
    env: 'TFGATE_RUN_TASK_LEASE',
    default: '60s',
    help: 'how long an instance holds a run task it works on before another instance (or a restart) takes it over',
  },
  {
    key: 'publicUrl',
    flag: '--public-url <url>',
    env: 'TFGATE_PUBLIC_URL',
    default: undefined,
    help: 'the URL HCP Terraform reaches this service at (for the run task URL to paste); default: from the Host header',
  },
  {
    key: 'logLevel',
    flag: '--log-level <level>',
    env: 'TFGATE_LOG_LEVEL',
    default: 'info',
    help: 'info, warn, error or silent; logs are JSON lines on stdout',
  },
] as const;

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
