// Finding the plans a flag names: a file is itself, a directory every plan under it, a glob its matches.
// Bounded: a search visits at most MAX_SEARCH_ENTRIES files and directories.
import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../errors/index.js';
import { shownPath } from '../errors/shown.js';
import type { PlanInputOption } from './plan-input.js';

export const GLOB_CHARS = /[*?[\]{}]/;
/** A plan file written by `terraform show -json`, or a saved plan, when a directory is searched. */
const PLAN_JSON_NAME = /\.json$/;
const PLAN_FILE_NAME = /(^tfplan$|\.tfplan$)/;

/** One plan found: its path and, when a directory was searched, that directory (roots are named inside it). */
export interface Found {
  path: string;
  searched?: string;
}

/** A file is itself; a directory is every plan under it (dot-directories skipped); a glob its matches. */
export async function expandPath(plan: PlanInputOption, flag: string, base = '.'): Promise<Found[]> {
  const path = isAbsolute(plan.path) || plan.path === '-' ? plan.path : join(base, plan.path);
  const paths = await expandPaths(plan, flag, path, base);
  const searched =
    paths.length > 0 &&
    (await stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  return paths.map((p) => (searched ? { path: p, searched: path } : { path: p }));
}

async function expandPaths(
  plan: PlanInputOption,
  flag: string,
  path: string,
  base: string,
): Promise<string[]> {
  if (plan.path === '-') {
    if (plan.kind === 'plan-file') {
      throw new UsageError('plan_input_required', '--plan-file cannot read stdin', {
        hint: 'give the saved plan file, or pipe `terraform show -json` into --plan-json -',
      });
    }
    return ['-'];
  }
  const found = await stat(path).catch(() => undefined);
  if (found?.isFile() || (found && !found.isDirectory())) return [path];
  const named = plan.kind === 'plan-json' ? PLAN_JSON_NAME : PLAN_FILE_NAME;
  let matches: string[];
  if (found?.isDirectory()) {
    matches = await filesOnly((await walk(path, flag)).filter((file) => named.test(basename(file))));
  } else if (GLOB_CHARS.test(plan.path)) {
    matches = await filesOnly(await globMatches(path, flag));
  } else {
    throw new UsageError('file_not_found', `${flag} ${shownPath(plan.path)} does not exist`, {
      hint: `check the path given to ${flag} (relative paths start at ${resolve(base)})`,
    });
  }
  if (matches.length === 0) {
    throw new UsageError('file_not_found', `${flag} ${shownPath(plan.path)} matches no plan`, {
      hint: found?.isDirectory()
        ? `a directory is searched for ${plan.kind === 'plan-json' ? '*.json files' : 'files named tfplan or *.tfplan'} (dot-directories skipped)`
        : 'check the pattern (quote it so the shell does not expand it first)',
    });
  }
  return matches.sort();
}

/** The most entries a directory search or a glob visits: a plan set is a few hundred roots, not a disk. */
const MAX_SEARCH_ENTRIES = 100_000;

function tooManyEntries(flag: string, path: string, limit: number): UsageError {
  return new UsageError(
    'too_many_files',
    `${flag} ${shownPath(path)}: more than ${limit.toLocaleString('en-US')} files and directories to search for plans`,
    {
      hint: 'give the directory that holds the plans (not a repository or home directory), or a narrower glob',
    },
  );
}

/**
 * Every file under `dir`, dot-directories (.terraform, .terragrunt-cache, .git) and dot-files never entered;
 * symbolic links are not followed, and past MAX_SEARCH_ENTRIES the search stops with a usage error.
 */
export async function walk(
  dir: string,
  flag: string,
  limit = MAX_SEARCH_ENTRIES,
  seen = { entries: 0 },
): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => !e.name.startsWith('.'));
  seen.entries += entries.length;
  if (seen.entries > limit) throw tooManyEntries(flag, dir, limit);
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? walk(join(dir, entry.name), flag, limit, seen)
        : Promise.resolve([join(dir, entry.name)]),
    ),
  );
  return nested.flat();
}

/**
 * A glob's matches, by Node's fs.glob (Node 22 and later). Looked up when used, never imported by name: the
 * module must still load on a Node without it, where only the glob is refused.
 */
async function globMatches(pattern: string, flag: string): Promise<string[]> {
  const fs: { glob?: (pattern: string) => AsyncIterable<string> } = await import('node:fs/promises');
  if (typeof fs.glob !== 'function') {
    throw new UsageError('plan_input_required', `${flag} ${pattern}: globs need Node.js 22 or later`, {
      hint: 'give the directory that holds the plans instead, or each plan file',
    });
  }
  const matches: string[] = [];
  for await (const match of fs.glob(pattern)) {
    if (matches.push(match) > MAX_SEARCH_ENTRIES) throw tooManyEntries(flag, pattern, MAX_SEARCH_ENTRIES);
  }
  return matches;
}

async function filesOnly(paths: string[]): Promise<string[]> {
  const kinds = await Promise.all(
    paths.map((p) =>
      stat(p).then(
        (s) => s.isFile(),
        () => false,
      ),
    ),
  );
  return paths.filter((_p, i) => kinds[i]);
}
