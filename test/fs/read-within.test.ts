// readFileWithin: never more than maxBytes (+1) of a file, even one that holds more than its size says.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileWithin } from '../../src/fs/read-within.js';

const dir = mkdtempSync(join(tmpdir(), 'tfgate-read-within-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readFileWithin', () => {
  it('reads a file of up to maxBytes and refuses a larger one', async () => {
    const file = join(dir, 'ten');
    writeFileSync(file, '0123456789');
    expect((await readFileWithin(file, 10))?.toString()).toBe('0123456789');
    expect(await readFileWithin(file, 9)).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')(
    'refuses a file that holds more than its size said (procfs reports 0 bytes)',
    async () => {
      // As a file growing between stat and read: a stat-then-readFile would have read all of it.
      expect(await readFileWithin('/proc/self/status', 1 << 20)).toBeUndefined();
    },
  );

  it('throws when the file cannot be opened', async () => {
    await expect(readFileWithin(join(dir, 'missing'), 10)).rejects.toThrow(/ENOENT/);
  });
});
