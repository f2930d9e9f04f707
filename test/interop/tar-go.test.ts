// tfgate's tar reader against Go's archive/tar, which opa uses to read bundles: wherever tfgate accepts an
// archive, Go reads the same regular files with the same bytes (a fuzz target, and hand-made edge cases).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTarGz } from '../../src/policy/bundle/tar.js';
import { runFuzzTarget } from '../policy/fuzz/spawn.js';
import { member, paxRecord, tarGzOf } from '../policy/tar-craft.js';

let dir: string;
let goTar: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-go-tar-'));
  goTar = join(dir, 'go-tar');
  await execa('go', ['build', '-o', goTar, join(import.meta.dirname, 'go-tar', 'main.go')]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function goRead(
  archive: Buffer,
): Promise<{ files?: Array<{ name: string; sha256: string }>; error?: string }> {
  const { stdout } = await execa(goTar, { input: `${archive.toString('base64')}\n` });
  return JSON.parse(stdout);
}

describe('tfgate reads what Go (opa) reads', () => {
  it.each([
    ['a size with leading NULs', [member({ name: 'a.rego', size: '\0\x000000017\0' }, 'fifteen bytes!!')]],
    [
      'a pax path and size',
      [
        member({ type: 'x', name: 'p' }, paxRecord('path', 'tfgate/b.rego') + paxRecord('size', '2')),
        member({ name: 'x', size: 0 }, 'ab'),
      ],
    ],
    [
      'a GNU long name',
      [
        member({ type: 'L', name: '././@LongLink', format: 'gnu' }, 'tfgate/c.rego\0'),
        member({ name: 'c', format: 'gnu' }, 'c'),
      ],
    ],
    ['a USTAR prefix', [member({ name: 'd.rego', prefix: 'tfgate' }, 'd')]],
    [
      'a STAR prefix',
      [
        member(
          {
            name: 'e.rego',
            prefix: 'p'.repeat(131),
            patch: [
              [476, '00000000001\0'],
              [508, 'tar\0'],
            ],
          },
          'e',
        ),
      ],
    ],
    [
      'a directory, then a file',
      [member({ type: '5', name: 'tfgate/' }), member({ name: 'tfgate/f.rego' }, 'f')],
    ],
  ])('%s', async (_what, members) => {
    const archive = tarGzOf(...members);
    const ours = readTarGz(archive).map((e) => e.name);
    const theirs = await goRead(archive);
    expect(theirs.error).toBeUndefined();
    expect(theirs.files!.map((f) => f.name.replace(/^\//, ''))).toEqual(ours);
  });

  it('fuzz: wherever tfgate accepts a hostile archive, Go reads the same files and bytes', async () => {
    const report = await runFuzzTarget('go-tar', { GO_TAR: goTar });
    expect(report.numRuns).toBeGreaterThan(200);
  });
});
