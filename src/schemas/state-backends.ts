// The state backends and fallbacks, as plain lists with no schema library: `tfgate serve`'s flag table
// (src/service/serve-settings.ts) needs them when the CLI starts, before any command's schemas load.

/** Every backend a package may read its state from (the service's and the client's one list). */
export const STATE_BACKEND_TYPES = [
  's3',
  'gcs',
  'azurerm',
  'pg',
  'http',
  'remote',
  'cloud',
  'kubernetes',
  'consul',
  'local',
] as const;

/** What a check does when the backend read fails: fail (`none`), or judge the pushed snapshot and say so. */
export const STATE_FALLBACKS = ['none', 'pushed'] as const;
