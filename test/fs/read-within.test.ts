// readFileWithin and readFileWithinSync: never more than maxBytes (+1) of a file, whatever its size says (procfs, devices, pipes).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileWithin, readFileWithinSync } from '../../src/fs/read-within.js';

const dir = mkdtempSync(join(tmpdir(), 'tfgate-read-within-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readers = [
  { name: 'readFileWithin', read: readFileWithin },
  {
    name: 'readFileWithinSync',
    read: async (file: string, maxBytes: number) => readFileWithinSync(file, maxBytes),
  },
];

describe.each(readers)('$name', ({ read: readFileWithin }) => {
  it('reads a file of up to maxBytes and refuses a larger one', async () => {
    const file = join(dir, 'ten');
    writeFileSync(file, '0123456789');
    expect((await readFileWithin(file, 10))?.toString()).toBe('0123456789');
    expect(await readFileWithin(file, 9)).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')(
    'bounds a file by what it holds, not by what stat says (procfs reports 0 bytes, /dev/zero never ends)',
    async () => {
      // As a file growing between stat and read: a stat-then-readFile would have read all of it.
      expect((await readFileWithin('/proc/self/status', 1 << 20))?.toString()).toContain('Name:');
      expect(await readFileWithin('/proc/self/status', 8)).toBeUndefined();
      expect(await readFileWithin('/dev/zero', 1 << 16)).toBeUndefined();
    },
  );

  it('throws when the file cannot be opened', async () => {
    await expect(readFileWithin(join(dir, 'missing'), 10)).rejects.toThrow(/ENOENT/);
  });
});
