// tfgate's version, from the package.json it ships with (dist/cli/ and src/cli/ both sit two levels below
// it): one small synchronous read at start-up, so the version can never drift from the published one.
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}
