// No `cmd | grep -q` in any script, CI file or example: under `set -o pipefail` (bash -eo pipefail is what
// GitHub, GitLab and our scripts use), grep -q exits at the first match, the writer gets SIGPIPE, and the
// pipeline fails although the text was found. Capture the output first, then grep it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

/** A pipe into grep with -q / --quiet / --silent among its options (also across a line continuation). */
const PIPE_INTO_QUIET_GREP =
  /\|\s*(?:\\\n\s*)?grep\b(?:\s+-[-\w=]*)*?\s+(?:-[a-zA-Z]*q[a-zA-Z]*|--quiet|--silent)\b/;

/** The text without comment lines: a comment may name the pattern it warns about. */
const code = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');

const SCANNED = ['scripts', '.ci', 'examples'];
const SKIPPED = new Set(['node_modules', '.terraform', 'cdktf.out']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('scripts and examples', () => {
  it('never pipe into grep -q', () => {
    const offenders = SCANNED.flatMap((dir) => files(join(REPO_ROOT, dir)))
      .filter((path) => PIPE_INTO_QUIET_GREP.test(code(readFileSync(path, 'utf8'))))
      .map((path) => relative(REPO_ROOT, path));
    expect(offenders).toEqual([]);
  });

  it('the check recognises the pattern (a control)', () => {
    for (const bad of [
      'terraform state list | grep -q ledger',
      'x | grep -qx y',
      'x | grep -F -q y',
      'x |\\\n  grep --quiet y',
    ]) {
      expect(PIPE_INTO_QUIET_GREP.test(bad), bad).toBe(true);
    }
    for (const good of ['grep -q y <<<"$x"', 'x | grep -c y', 'x | grep y > /dev/null', 'x | grep -v q']) {
      expect(PIPE_INTO_QUIET_GREP.test(good), good).toBe(false);
    }
  });
});
