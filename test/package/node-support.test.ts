// The Node lines tfgate supports: package.json's engines, the versions scripts/setup-tools.sh pins for the
// suite's two runs (newest and oldest line), and this process's Node all agree; and the source-run hooks
// the tests use print no warning on this Node.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const setupTools = readFileSync(join(REPO_ROOT, 'scripts', 'setup-tools.sh'), 'utf8');

type Version = [number, number, number];
const parse = (v: string): Version => v.split('.').map(Number) as Version;
const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** engines.node as its alternatives; each `^x.y.z` or `>=x.y.z` (all this package uses). */
function satisfiesEngines(version: string): boolean {
  const v = parse(version);
  return manifest.engines.node.split('||').some((alternative) => {
    const match = /^\s*(\^|>=)(\d+\.\d+\.\d+)\s*$/.exec(alternative);
    if (!match) throw new Error(`engines.node: cannot read "${alternative}"`);
    const floor = parse(match[2]!);
    return compare(v, floor) >= 0 && (match[1] === '>=' || v[0] === floor[0]);
  });
}

function pinned(name: string): string {
  const match = new RegExp(`${name}="\\$\\{TFGATE_${name}:-([0-9.]+)\\}"`).exec(setupTools);
  if (!match) throw new Error(`setup-tools.sh pins no ${name}`);
  return match[1]!;
}

describe('supported Node lines', () => {
  it('engines names maintained LTS lines only, and the pinned newest and oldest satisfy it', () => {
    const lines = [...manifest.engines.node.matchAll(/(\d+)\.\d+\.\d+/g)].map((m) => Number(m[1]));
    expect(lines.every((line) => line % 2 === 0 && line >= 22)).toBe(true); // 20 ended on 2026-04-30
    const newest = pinned('NODE_NEWEST_VERSION');
    const oldest = pinned('NODE_OLDEST_VERSION');
    expect(satisfiesEngines(newest)).toBe(true);
    expect(satisfiesEngines(oldest)).toBe(true);
    expect(parse(oldest)[0]).toBe(Math.min(...lines));
    expect(parse(newest)[0]).toBe(Math.max(...lines));
    expect(satisfiesEngines('20.20.2')).toBe(false);
  });

  it(`this Node (${process.version}) is a supported one`, () => {
    expect(satisfiesEngines(process.versions.node)).toBe(true);
  });

  it('the CLI runs from source through the test hooks without a warning (no deprecated loader API)', async () => {
    const result = await execa(
      process.execPath,
      [
        '--import',
        join(REPO_ROOT, 'test/helpers/ts-register.mjs'),
        join(REPO_ROOT, 'src/cli/main.ts'),
        '--version',
      ],
      { cwd: REPO_ROOT, reject: false },
    );
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });
});
