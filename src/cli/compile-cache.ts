// V8's compile cache for the CLI's own modules (Node 22.1+): a second run skips parsing and compiling
// ~1 MB of JavaScript. The cache holds code Node will run, so it lives only in a directory this user owns
// and nobody else can write (0700, checked with lstat: no symlink, right owner, no group/other bits);
// anything else and the CLI runs uncached. Node itself checks each entry's checksum and V8 version.
import { lstatSync, mkdirSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the cache lives: $TFGATE_CACHE_DIR, else $XDG_CACHE_HOME/tfgate, else ~/.cache/tfgate. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.TFGATE_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tfgate');
  return join(base, 'node-compile-cache');
}

/** True when `dir` is a real directory owned by this user with no access for group or others. */
export function isPrivateDir(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    const uid = process.getuid?.();
    return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The cache directory if it is (or could be made) private; undefined when it cannot be used safely. */
export function privateCompileCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const dir = compileCacheDir(env);
  try {
    // mkdir's mode applies only to directories it creates; isPrivateDir checks what is there either way.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return undefined;
  }
  return isPrivateDir(dir) ? dir : undefined;
}

/** Enable the cache in a private directory; never fails the command (an unusable cache is no cache). */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (typeof module.enableCompileCache !== 'function') return undefined;
  const dir = privateCompileCacheDir(env);
  if (dir !== undefined) module.enableCompileCache(dir);
  return dir;
}
