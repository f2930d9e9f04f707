// `tfgate … | head`: the reader closes stdout early. tfgate must not crash with an unhandled EPIPE, and must
// keep the exit code it decided (a pipeline reads the exit code, not the output).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { buildCli } from '../helpers/cli.js';

const MAIN = resolve(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

beforeAll(() => buildCli());

test('a closed stdout pipe is not a crash: the exit code is kept', async () => {
  const child = spawn(process.execPath, [MAIN, 'apply', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy(); // the reader is gone before tfgate writes anything
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  expect(code).toBe(0);
});
