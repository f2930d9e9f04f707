// Files written whole or not at all: a temporary file beside the target, then a rename. One helper for the
// reports, the bundle cache, `bundle build` and the kept plan of `tfgate plan --out`.
import { chmod, copyFile, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors/index.js';

/** What a failed atomic write says: its error code, what the file is, and how to fix it. */
export interface WriteFailure {
  code: string;
  what: string;
  hint: string;
}

function tempPath(path: string): string {
  // node:crypto loads on first use: imported at the top it cost `tfgate apply` ~5 ms before terraform started.
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Put `temp` in place of `path` with `fill`; on any failure remove it and throw a UsageError naming `path`.
 * A device or a pipe (/dev/null, /dev/stdout, a FIFO a step reads) is written into with `direct`, never
 * replaced: a rename over it put a regular file in its place (run as root, `--report json=/dev/null`
 * replaced /dev/null).
 */
async function replaceAtomically(
  path: string,
  failure: WriteFailure,
  fill: (temp: string) => Promise<void>,
  direct: () => Promise<void>,
): Promise<void> {
  const temp = (await isSpecialFile(path)) ? undefined : tempPath(path);
  try {
    if (temp === undefined) {
      await direct();
    } else {
      await fill(temp);
      await rename(temp, path);
    }
  } catch (error) {
    if (temp !== undefined) await rm(temp, { force: true });
    // Name the file the user asked for, not the temporary one.
    const message = String((error as Error).message);
    const reason = temp === undefined ? message : message.replaceAll(temp, path);
    throw new UsageError(failure.code, `could not write ${failure.what} ${path}: ${reason}`, {
      hint: failure.hint,
      cause: error,
    });
  }
}

/** Whether `path` exists as something other than a regular file or a directory (a device, a FIFO, a socket). */
async function isSpecialFile(path: string): Promise<boolean> {
  try {
    const found = await stat(path);
    return !found.isFile() && !found.isDirectory();
  } catch {
    return false;
  }
}

/**
 * Write a file whole or not at all. Fails as a UsageError. `mode` applies from the first byte (the temporary
 * file is created with it), e.g. 0o600 for owner-only files.
 */
export function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  failure: WriteFailure,
  mode = 0o644,
): Promise<void> {
  return replaceAtomically(
    path,
    failure,
    (temp) => writeFile(temp, content, { mode, flag: 'wx' }),
    () => writeFile(path, content),
  );
}

/** Copy `from` to `path` whole or not at all, with `mode` set before the copy becomes visible. */
export function copyFileAtomic(
  from: string,
  path: string,
  failure: WriteFailure,
  mode = 0o644,
): Promise<void> {
  return replaceAtomically(
    path,
    failure,
    async (temp) => {
      await copyFile(from, temp);
      await chmod(temp, mode);
    },
    async () => writeFile(path, await readFile(from)),
  );
}
