// The configuration the locator tests plan with terraform and tofu, and where its blocks are.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './terraform.js';

/** Nested local modules, count and for_each instances, a .tf.json file, and text that only looks like blocks. */
export const LOCATE_FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'locate', 'config');

/** The 1-based line of the one line of `file` that starts with `start`. */
export function lineOf(file: string, start: string): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found = lines.flatMap((l, i) => (l.startsWith(start) ? [i + 1] : []));
  if (found.length !== 1) throw new Error(`${found.length} lines of ${file} start with ${start}`);
  return found[0] as number;
}
