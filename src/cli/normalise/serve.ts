// `tfgate serve`: flags and environment → the service's configuration, parsed once by the service's own
// schema. Each setting is a row of SERVE_SETTINGS (flag, variable, default): flags win, then the
// environment (an empty variable is unset), then the default.
import { nonEmpty, parseOptions } from '../../options/common.js';
import { SERVE_SETTINGS, type ServeConfig, serveConfigSchema } from '../../service/config.js';

/** Option path → how the user wrote it: the flag, and its variable. */
const SERVE_FLAG_NAMES: Readonly<Record<string, string>> = Object.fromEntries([
  ...SERVE_SETTINGS.map((s) => [s.key, `${s.flag.split(' ')[0]} (env ${s.env})`]),
  ['bootstrapApiKey', 'TFGATE_BOOTSTRAP_API_KEY'],
]);

export function normaliseServeOptions(flags: Record<string, unknown>, env: NodeJS.ProcessEnv): ServeConfig {
  const input: Record<string, unknown> = {};
  for (const { key, env: variable, default: fallback } of SERVE_SETTINGS) {
    const fromEnv =
      nonEmpty(env[variable]) ?? (key === 'databaseUrl' ? nonEmpty(env.DATABASE_URL) : undefined);
    const value = flags[key] ?? fromEnv ?? fallback;
    if (value !== undefined) input[key] = value;
  }
  const bootstrapApiKey = nonEmpty(env.TFGATE_BOOTSTRAP_API_KEY);
  if (bootstrapApiKey !== undefined) input.bootstrapApiKey = bootstrapApiKey;
  return parseOptions(
    serveConfigSchema,
    input,
    SERVE_FLAG_NAMES,
    'run tfgate serve --help to see the settings',
  );
}
