// writeFileAtomic: a temporary file and a rename for files, but a device or a pipe is written into, never
// replaced. Run as root, `--report json=/dev/null` once put a regular file in place of /dev/null.
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileAtomic, writeFileAtomic } from '../../src/fs/atomic-file.js';

const dir = mkdtempSync(join(tmpdir(), 'tfgate-atomic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FAILURE = { code: 'output_not_written', what: 'the report', hint: 'check the directory' };

/** What a reader of the FIFO receives, or "nothing" if no writer opened it within a few seconds. */
function readFifo(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => resolve('nothing'), 5000);
    createReadStream(path, 'utf8')
      .on('data', (chunk) => {
        text += chunk;
      })
      .on('end', () => {
        clearTimeout(timer);
        resolve(text);
      })
      .on('error', reject);
  });
}

describe('writeFileAtomic', () => {
  it('replaces a regular file whole', async () => {
    const file = join(dir, 'report.json');
    await writeFileAtomic(file, 'one', FAILURE);
    await writeFileAtomic(file, 'two', FAILURE);
    expect(await readFile(file, 'utf8')).toBe('two');
  });

  it.each([
    ['writeFileAtomic', (path: string) => writeFileAtomic(path, '{"decision":"pass"}', FAILURE)],
    [
      'copyFileAtomic',
      async (path: string) => {
        const from = join(dir, 'source.json');
        await writeFileAtomic(from, '{"decision":"pass"}', FAILURE);
        await copyFileAtomic(from, path, FAILURE);
      },
    ],
  ])('%s writes into a FIFO a step reads, and leaves it a FIFO', async (name, write) => {
    const fifo = join(dir, `${name}.fifo`);
    await execa('mkfifo', [fifo]);
    const received = readFifo(fifo);
    await write(fifo);
    expect(await received).toBe('{"decision":"pass"}');
    expect(statSync(fifo).isFIFO()).toBe(true);
  });
});
