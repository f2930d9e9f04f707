// The CLI's V8 compile cache holds code node will run: it is used only from a directory this user owns
// and nobody else can write. Anything else (group/other bits, a symlink, an unusable path) runs uncached.

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, test } from 'vitest';
import { compileCacheDir, isPrivateDir, privateCompileCacheDir } from '../../src/cli/compile-cache.js';
import { buildCli, REPO_ROOT } from '../helpers/cli.js';

beforeAll(() => buildCli());

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'tfgate-compile-cache-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

test('the cache lives under TFGATE_CACHE_DIR, else XDG_CACHE_HOME/tfgate', () => {
  expect(compileCacheDir({ TFGATE_CACHE_DIR: '/c' })).toBe('/c/node-compile-cache');
  expect(compileCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/tfgate/node-compile-cache');
});

test('a directory it creates is private (0700)', () => {
  const dir = privateCompileCacheDir({ TFGATE_CACHE_DIR: join(base, 'fresh') });
  expect(dir).toBe(join(base, 'fresh', 'node-compile-cache'));
  expect(statSync(dir as string).mode & 0o777).toBe(0o700);
});

test('a directory others can write, a symlink or a file is not used', () => {
  const open = join(base, 'open', 'node-compile-cache');
  mkdirSync(open, { recursive: true, mode: 0o700 });
  chmodSync(open, 0o777);
  expect(isPrivateDir(open)).toBe(false);
  expect(privateCompileCacheDir({ TFGATE_CACHE_DIR: join(base, 'open') })).toBeUndefined();

  const target = join(base, 'target');
  mkdirSync(target, { mode: 0o700 });
  mkdirSync(join(base, 'linked'));
  symlinkSync(target, join(base, 'linked', 'node-compile-cache'));
  expect(privateCompileCacheDir({ TFGATE_CACHE_DIR: join(base, 'linked') })).toBeUndefined();

  mkdirSync(join(base, 'file'));
  writeFileSync(join(base, 'file', 'node-compile-cache'), '');
  expect(privateCompileCacheDir({ TFGATE_CACHE_DIR: join(base, 'file') })).toBeUndefined();
});

test('NODE_DISABLE_COMPILE_CACHE turns it off', () => {
  expect(privateCompileCacheDir({ TFGATE_CACHE_DIR: base, NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
});

test('the CLI entry fills the private cache, and runs uncached when the directory is not private', () => {
  const bin = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
  const env: NodeJS.ProcessEnv = { ...process.env, TFGATE_CACHE_DIR: join(base, 'cli') };
  delete env.NODE_DISABLE_COMPILE_CACHE;
  expect(execFileSync(process.execPath, [bin, '--version'], { env, encoding: 'utf8' })).toMatch(
    /^\d+\.\d+\.\d+/,
  );
  const dir = join(base, 'cli', 'node-compile-cache');
  expect(readdirSync(dir, { recursive: true }).length).toBeGreaterThan(0);

  rmSync(dir, { recursive: true });
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, 0o757);
  expect(execFileSync(process.execPath, [bin, '--version'], { env, encoding: 'utf8' })).toMatch(
    /^\d+\.\d+\.\d+/,
  );
  expect(readdirSync(dir)).toEqual([]);
});
