// The directory search of `tfgate check <dir>`: dot-directories skipped, symbolic links not followed, and a
// tree too large to be a plan set refused in plain words instead of read without end.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { walk } from '../../src/commands/plan-files.js';

const dir = mkdtempSync(join(tmpdir(), 'tfgate-walk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('walk', () => {
  it('lists files below, skipping dot-directories and not following a link back up', async () => {
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    mkdirSync(join(dir, '.terraform'));
    writeFileSync(join(dir, 'a', 'b', 'plan.json'), '{}');
    writeFileSync(join(dir, '.terraform', 'plan.json'), '{}');
    symlinkSync(dir, join(dir, 'a', 'loop'));
    const files = await walk(dir, '--plan-json');
    expect(files.filter((f) => f.endsWith('plan.json'))).toEqual([join(dir, 'a', 'b', 'plan.json')]);
  });

  it('refuses a tree with more entries than the limit, naming the flag and what to give instead', async () => {
    const wide = join(dir, 'wide');
    mkdirSync(wide);
    for (let i = 0; i < 12; i++) writeFileSync(join(wide, `f${i}.json`), '{}');
    await expect(walk(wide, '--plan-json', 10)).rejects.toMatchObject({
      code: 'too_many_files',
      message: expect.stringContaining('--plan-json'),
      hint: expect.stringContaining('narrower glob'),
    });
    expect(await walk(wide, '--plan-json', 12)).toHaveLength(12);
  });
});
