// The npm registry reachable here does not serve Biome's binaries for other platforms, so `npm install`
// leaves them out of package-lock.json and `npm ci` then rejects the lock as out of sync. This adds
// platform-gated entries for them (npm ci skips optional packages of another os/cpu, so they are never
// fetched here, and a developer on macOS or Windows gets a lock that still names their binary).
// Run after any `npm install` that rewrites the lock: node scripts/lock-foreign-optionals.mjs
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;
const PLATFORMS = {
  'android-arm64': { os: ['android'], cpu: ['arm64'] },
  'android-x64': { os: ['android'], cpu: ['x64'] },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  'linux-arm64': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
  'linux-arm64-musl': { os: ['linux'], cpu: ['arm64'], libc: ['musl'] },
  'linux-x64': { os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
  'linux-x64-musl': { os: ['linux'], cpu: ['x64'], libc: ['musl'] },
  'win32-arm64': { os: ['win32'], cpu: ['arm64'] },
  'win32-x64': { os: ['win32'], cpu: ['x64'] },
};
let added = 0;
for (const entry of Object.values(packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    const match = /^@biomejs\/cli-(.+)$/.exec(name);
    const key = `node_modules/${name}`;
    if (!match || packages[key] || !PLATFORMS[match[1]]) continue;
    packages[key] = {
      version: entry.optionalDependencies[name],
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...PLATFORMS[match[1]],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(`${LOCK.pathname}.tmp`, `${JSON.stringify(lock, null, 2)}\n`);
renameSync(`${LOCK.pathname}.tmp`, LOCK);
console.log(`lock-foreign-optionals: added ${added} platform-gated entries`);
