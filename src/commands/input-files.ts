// Files the user named on the command line, checked before any work starts: a missing input, or an output
// that could not be written, is a usage error (exit 1) in every command, naming the flag and the path, never a
// "no decision" found halfway through.
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors/index.js';
import { shownPath } from '../errors/shown.js';
import type { ReportFormat } from '../report/formats.js';
import type { ReportTarget } from '../report/targets.js';

export interface NamedFile {
  /** How the user gave it: "--bundle", "TFGATE_PUBLIC_KEY", ... */
  flag: string;
  path: string;
  /** What to do about it, when there is more to say than "check the path". */
  hint?: string;
}

/** An environment variable's name (TFGATE_PUBLIC_KEY), as opposed to a flag or a phrase. */
const VARIABLE = /^[A-Z][A-Z0-9_]*$/;

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
      // As it was given: `--public-key key.pem`, or `TFGATE_PUBLIC_KEY=key.pem` from the environment.
      const given = `${file.flag}${VARIABLE.test(file.flag) ? '=' : ' '}${shownPath(file.path)}`;
      throw new UsageError('file_not_found', `${given} ${what}`, {
        hint: file.hint ?? `check the path given to ${file.flag} (relative paths start at ${process.cwd()})`,
        ...(found instanceof Error ? { cause: found } : {}),
      });
    }
  }
}

/** A working directory the user named (--chdir): it must exist and be a directory, before terraform starts. */
export function requireDirectory(flag: string, path: string): void {
  const found = statSync(path, { throwIfNoEntry: false });
  if (found?.isDirectory()) return;
  throw new UsageError(
    'directory_not_found',
    `${flag} ${shownPath(path)} ${found ? 'is a file, not a directory' : 'does not exist'}`,
    { hint: `give the directory of the Terraform configuration (relative paths start at ${process.cwd()})` },
  );
}

/** A file a command will write, as the user named it. */
export interface NamedOutput {
  /** What it is: "the sarif report", "the plan (--out)". */
  what: string;
  path: string;
  /** A file name to suggest when the path names a directory: "tfgate.sarif". */
  example: string;
}

const REPORT_EXTENSIONS: Readonly<Record<ReportFormat, string>> = {
  text: 'txt',
  json: 'json',
  markdown: 'md',
  sarif: 'sarif',
  junit: 'xml',
};

/** The report targets that go to a file, as outputs to check (a report on stdout is not one). */
export function reportOutputs(targets: readonly ReportTarget[]): NamedOutput[] {
  return targets.flatMap((target) =>
    target.path === undefined
      ? []
      : [
          {
            what: `the ${target.format} report`,
            path: target.path,
            example: `tfgate.${REPORT_EXTENSIONS[target.format]}`,
          },
        ],
  );
}

/**
 * Where a command will write, checked before any work starts (before terraform plans, before a plan is read):
 * each path's directory exists, is a directory and can be written to; the path is not a directory; no two
 * outputs are one file. A usage error (exit 1) naming the path: a decision is never lost, after a whole plan,
 * to a file that could not be written, and one report never silently replaces another.
 */
export function requireOutputs(outputs: readonly NamedOutput[]): void {
  const seen = new Map<string, NamedOutput>();
  for (const output of outputs) {
    const file = writableFile(output);
    const earlier = seen.get(file);
    if (earlier) {
      throw new UsageError(
        'invalid_output',
        `${earlier.what} and ${output.what} would both be written to ${shownPath(output.path)}: the second would replace the first`,
        { hint: 'give each report its own file (--report <format>=<file>)' },
      );
    }
    seen.set(file, output);
  }
}

/**
 * No output is one of the inputs (the same file by any name: a symlink, a hard link, ./plan.json): writing a
 * report over the plan, the bundle or the key would destroy what was read, so it is a usage error before any
 * work starts. Inputs and outputs that do not exist yet cannot be one file.
 */
export function requireOutputsApartFromInputs(
  outputs: readonly NamedOutput[],
  inputs: readonly NamedFile[],
): void {
  const existing = inputs.flatMap((input) => {
    const found = input.path === '-' ? undefined : statSync(input.path, { throwIfNoEntry: false });
    return found?.isFile() ? [{ input, found }] : [];
  });
  for (const output of outputs) {
    const written = statSync(output.path, { throwIfNoEntry: false });
    if (!written?.isFile()) continue;
    const same = existing.find(({ found }) => found.dev === written.dev && found.ino === written.ino);
    if (same) {
      throw new UsageError(
        'invalid_output',
        `cannot write ${output.what} to ${shownPath(output.path)}: it is the file read as ${same.input.flag} ${shownPath(same.input.path)}, which the report would replace`,
        { hint: `write the report to another file: e.g. ${output.example}` },
      );
    }
  }
}

/** The output's file as the same file is always named (its directory's real path), or a usage error. */
function writableFile(output: NamedOutput): string {
  const { path } = output;
  const refuse = (reason: string, hint: string, cause?: unknown): never => {
    throw new UsageError('invalid_output', `cannot write ${output.what} to ${shownPath(path)}: ${reason}`, {
      hint,
      ...(cause === undefined ? {} : { cause }),
    });
  };
  const where = `relative paths start at ${process.cwd()}`;
  if (/[\\/]$/.test(path)) {
    return refuse(
      'it names a directory',
      `name a file, not a directory: e.g. ${shownPath(join(path, output.example))}`,
    );
  }
  const directory = dirname(path);
  // How messages name the directory: the user's path may hold a newline.
  const shownDirectory = shownPath(directory);
  let real: string;
  try {
    real = realpathSync(directory);
  } catch (error) {
    return refuse(
      `the directory ${shownDirectory} does not exist`,
      `create ${shownDirectory} first, or name a file in a directory that exists (${where})`,
      error,
    );
  }
  if (!statSync(real).isDirectory()) {
    return refuse(`${shownDirectory} is not a directory`, `name a file in a directory (${where})`);
  }
  try {
    accessSync(real, constants.W_OK | constants.X_OK);
  } catch (error) {
    return refuse(
      `the directory ${shownDirectory} is not writable`,
      `name a file in a directory you can write to, or change ${shownDirectory}'s permissions`,
      error,
    );
  }
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    return refuse(
      'it is a directory',
      `name a file, not a directory: e.g. ${shownPath(join(path, output.example))}`,
    );
  }
  return join(real, basename(path));
}
