// `tfgate keys create`: flags and environment → KeysCreateOptions, parsed once.
import { type KeysCreateOptions, keysCreateOptionsSchema } from '../../commands/keys.js';
import { parseOptions } from '../../options/common.js';
import { API_KEY_SCOPES } from '../../schemas/contract.js';

export interface KeysCreateFlags {
  account?: string;
  name?: string;
  /** Space or comma separated, possibly both (`--scopes a,b c`). */
  scopes?: string[];
  baseUrl?: string;
  caFile?: string;
}

export function normaliseKeysCreateOptions(flags: KeysCreateFlags): KeysCreateOptions {
  // Not given stays undefined, so it is named as a missing flag; given but empty is refused as empty.
  const scopes = flags.scopes
    ?.flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  return parseOptions(
    keysCreateOptionsSchema,
    { ...flags, scopes },
    { account: '--account', name: '--name', scopes: '--scopes', baseUrl: '--base-url', caFile: '--ca-file' },
    `scopes are: ${API_KEY_SCOPES.join(', ')}`,
  );
}
