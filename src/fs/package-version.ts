// tfgate's version, from the package.json it ships with (dist/<folder>/ and src/<folder>/ both sit two levels
// below it): one small synchronous read, cached, so the version can never drift from the published one.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached !== undefined) return cached;
  // Our own manifest, shipped beside the code: not input from a user.
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  cached = typeof manifest.version === 'string' ? manifest.version : 'unknown';
  return cached;
}
