// The import rules (.dependency-cruiser.cjs) that `npm test` runs on src/: they must pass on src/ and fire on
// a cycle and on an upward import, or the check could never fail.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

async function cruise(cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(DEPCRUISE, ['src', '--config', CONFIG], { cwd });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

let fixture: string;

/** A tiny tree in tfgate's layout with the given files. */
async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(fixture, 'tree-'));
  await writeFile(
    join(dir, 'tsconfig.json'),
    '{"compilerOptions":{"module":"NodeNext","moduleResolution":"NodeNext"}}',
  );
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

beforeAll(async () => {
  fixture = await mkdtemp(join(tmpdir(), 'tfgate-depcruise-'));
});

afterAll(async () => {
  await rm(fixture, { recursive: true, force: true });
});

describe('the dependency rules', () => {
  it('hold for src/', async () => {
    const result = await cruise(ROOT);
    expect(result.code, result.output).toBe(0);
  }, 60_000);

  it('fail on an import cycle', async () => {
    const dir = await tree({
      'src/report/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/report/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    const result = await cruise(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('no-circular');
  }, 60_000);

  it('fail on an upward import (a lower layer importing the CLI)', async () => {
    const dir = await tree({
      'src/cli/program.ts': 'export const program = 1;\n',
      'src/policy/engine.ts':
        "import { program } from '../cli/program.js';\nexport const engine = program;\n",
    });
    const result = await cruise(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('no-upward-import-from-policy');
  }, 60_000);

  it("fail on zod imported other than through schemas/zod.ts (which sets zod's English wording)", async () => {
    const bypass = await tree({
      'src/schemas/zod.ts': "export * from 'zod/mini';\n",
      'src/policy/engine.ts': "import * as z from 'zod/mini';\nexport const engine = z.string();\n",
    });
    const refused = await cruise(bypass);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('zod-through-schemas-zod');
    const through = await tree({
      'src/schemas/zod.ts': "export * from 'zod/mini';\n",
      'src/policy/engine.ts': "import * as z from '../schemas/zod.js';\nexport const engine = z.string();\n",
    });
    const accepted = await cruise(through);
    expect(accepted.code, accepted.output).toBe(0);
  }, 60_000);

  it('accept a downward import', async () => {
    const dir = await tree({
      'src/model/index.ts': 'export const model = 1;\n',
      'src/cli/main.ts': "import { model } from '../model/index.js';\nexport const main = model;\n",
    });
    const result = await cruise(dir);
    expect(result.code, result.output).toBe(0);
  }, 60_000);
});
