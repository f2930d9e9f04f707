// Files the user named on the command line, checked before any work starts: a missing one is a usage error
// (exit 1) in every command, naming the flag and the path, never a "no decision" found halfway through.
import { statSync } from 'node:fs';
import { UsageError } from '../errors/index.js';

export interface NamedFile {
  /** How the user gave it: "--bundle", "TFGATE_PUBLIC_KEY", ... */
  flag: string;
  path: string;
  /** What to do about it, when there is more to say than "check the path". */
  hint?: string;
}

/** Throws a UsageError for the first file that does not exist or is a directory. */
export async function requireFiles(files: readonly NamedFile[]): Promise<void> {
  for (const file of files) {
    // Synchronous: a stat takes microseconds, and `apply` checks its files before terraform starts.
    let found: ReturnType<typeof statSync> | Error;
    try {
      found = statSync(file.path);
    } catch (error) {
      found = error as Error;
    }
    // Devices and pipes pass (/dev/stdin, a shell's <(...)): only nothing, or a directory, is refused here.
    if (found instanceof Error || found.isDirectory()) {
      const what = found instanceof Error ? 'does not exist' : 'is a directory, not a file';
      throw new UsageError('file_not_found', `${file.flag} ${file.path} ${what}`, {
        hint: file.hint ?? `check the path given to ${file.flag} (relative paths start at ${process.cwd()})`,
        ...(found instanceof Error ? { cause: found } : {}),
      });
    }
  }
}
