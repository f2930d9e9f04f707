// `tfgate serve`'s settings as a table (flag, variable, default, help), with no schema library: the CLI builds
// its --help from it at start-up; config.ts normalises the values with its zod schema when serve runs.
import { DEFAULT_STATE_BACKENDS } from './types.js';

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
    key: 'databaseConnectTimeout',
    flag: '--database-connect-timeout <duration>',
    env: 'TFGATE_DATABASE_CONNECT_TIMEOUT',
    // A firewall that drops packets, or a port where something other than PostgreSQL listens, answers
    // nothing: without a limit, start-up waited for ever.
    default: '10s',
    help: 'time limit of getting a PostgreSQL connection, a new one or a free one of the pool (0 is refused); at start-up, past it serve exits 1',
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
