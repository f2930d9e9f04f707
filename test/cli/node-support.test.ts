// On a Node.js tfgate does not support (package.json's engines), every command says so on stderr before it
// runs; on a supported one it says nothing. The CLI is run as users run it: the built CLI, under a Node that
// reports another version (a preloaded module sets process.version), and under the machine's own older
// Node when there is one.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeSupported, SUPPORTED_NODE_RANGE, unsupportedNodeWarning } from '../../src/cli/node-support.js';
import { buildCli, CLI_MAIN, REPO_ROOT, runCli } from '../helpers/cli.js';

const PLAN = join(REPO_ROOT, 'test', 'fixtures', 'plans', 'no-change.json');
let dir: string;
let asNode20: Record<string, string>;

beforeAll(async () => {
  await buildCli();
  dir = mkdtempSync(join(tmpdir(), 'tfgate-node-support-'));
  const preload = join(dir, 'node-20.mjs');
  writeFileSync(preload, "Object.defineProperty(process, 'version', { value: 'v20.19.0' });\n");
  asNode20 = { NODE_OPTIONS: `--import=${preload}` };
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A check that runs up to its own usage error (the bundle does not exist): enough to see what it prints first. */
const checkMissingBundle = () => [
  'check',
  '--plan-json',
  PLAN,
  '--allow-unsigned-bundle-INSECURE',
  '--bundle',
  join(dir, 'none.tar.gz'),
];

describe('the supported Node.js lines', () => {
  it("are package.json's engines", () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(SUPPORTED_NODE_RANGE).toBe(manifest.engines.node);
  });

  it('are 22.16 and later 22, any 24, and 26 and later; not 20, an early 22, 23 or 25', () => {
    for (const version of ['v22.16.0', 'v22.23.1', 'v24.0.0', 'v24.11.2', 'v26.0.0', 'v26.10.0', 'v27.1.0'])
      expect(nodeSupported(version), version).toBe(true);
    for (const version of ['v18.20.0', 'v20.20.2', 'v22.15.1', 'v23.11.0', 'v25.9.0'])
      expect(nodeSupported(version), version).toBe(false);
    expect(unsupportedNodeWarning('v26.10.0')).toBeUndefined();
    expect(unsupportedNodeWarning('v20.20.2')).toMatch(
      /^warning: Node\.js v20\.20\.2 is not supported by tfgate, which runs on Node\.js 22 \(22\.16 or later\), 24, and 26 or later/,
    );
  });
});

describe('a command on a Node.js tfgate does not support', () => {
  it('check and plan warn on stderr first, then run as they would', async () => {
    const check = await runCli(checkMissingBundle(), { env: asNode20 });
    expect(check.stderr.split('\n')[0]).toMatch(/^warning: Node\.js v20\.19\.0 is not supported by tfgate/);
    // The command itself still ran: the missing bundle is its own usage error.
    expect(check.exitCode).toBe(1);
    expect(check.stderr).toContain('--bundle');
    const plan = await runCli(
      ['plan', '--bundle', join(dir, 'none.tar.gz'), '--public-key', PLAN, '--chdir', dir],
      {
        env: asNode20,
      },
    );
    expect(plan.stderr.split('\n')[0]).toMatch(/^warning: Node\.js v20\.19\.0 is not supported by tfgate/);
    expect(plan.exitCode).toBe(1);
    // Said once, on stderr only: stdout (a report a program reads) is untouched.
    expect(check.stderr.match(/is not supported by tfgate/g)).toHaveLength(1);
    expect(check.stdout).not.toContain('warning');
  });

  it('says nothing on a supported Node.js', async () => {
    const check = await runCli(checkMissingBundle());
    expect(check.exitCode).toBe(1);
    expect(check.stderr).not.toContain('is not supported by tfgate');
  });

  const systemNode = '/usr/bin/node';
  const systemVersion = existsSync(systemNode)
    ? execFileSync(systemNode, ['--version'], { encoding: 'utf8' }).trim()
    : undefined;
  it.skipIf(systemVersion === undefined || nodeSupported(systemVersion))(
    `the machine's own older Node.js (${systemVersion ?? 'none'}) is warned about too`,
    async () => {
      const result = await execa(systemNode, [CLI_MAIN, ...checkMissingBundle()], {
        reject: false,
        env: { NO_COLOR: '1' },
      });
      expect(result.stderr.split('\n')[0]).toBe(unsupportedNodeWarning(systemVersion));
    },
  );
});
