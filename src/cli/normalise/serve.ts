// `tfgate serve`: flags and environment → the service's configuration, parsed once by the service's own
// schema. Each setting is a row of SERVE_SETTINGS (flag, variable, default): flags win, then the
// environment (an empty variable is unset), then the default.
import { nonEmpty, parseOptions } from '../../options/common.js';
import {
  SERVE_OPTION_NAMES,
  SERVE_SETTINGS,
  type ServeConfig,
  serveConfigSchema,
} from '../../service/config.js';

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
    SERVE_OPTION_NAMES,
    'run tfgate serve --help to see the settings',
  );
}
