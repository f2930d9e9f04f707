// examples/terraform, run as written: the README's commands against real terraform, on the offline route (a
// bundle the block signs itself; no service). tfgate is the built CLI, on PATH as `tfgate`. The CI examples have their own files:
// atlantis.test.ts (Atlantis's own code), spacelift.test.ts, github-workflows.test.ts, ci-examples.test.ts.
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../helpers/cli.js';
import { TerraformWorkspace } from '../helpers/terraform.js';
import { tfgateBinDir } from './tfgate-on-path.js';

const EXAMPLES = resolve(import.meta.dirname, '..', '..', 'examples');
const TERRAFORM_EXAMPLE = join(EXAMPLES, 'terraform');

let binDir: string;
const workspaces: TerraformWorkspace[] = [];

beforeAll(async () => {
  await buildCli();
  binDir = tfgateBinDir();
});

afterAll(() => {
  rmSync(binDir, { recursive: true, force: true });
});

afterEach(() => {
  for (const ws of workspaces.splice(0)) ws.cleanup();
});

function workspace(source: string): TerraformWorkspace {
  const ws = TerraformWorkspace.create(source);
  workspaces.push(ws);
  return ws;
}

interface Shell {
  exitCode: number;
  stdout: string;
  all: string;
}

/** `sh -c`, as Atlantis run steps and Spacelift commands and hooks are run. No TFGATE_* leaks in. */
async function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Shell> {
  const clean = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('TFGATE_')));
  const extra = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('TFGATE_')));
  const result = await execa('sh', ['-c', command], {
    cwd,
    env: { ...clean, ...extra, PATH: `${binDir}:${process.env.PATH}`, NO_COLOR: '1', CI: 'true' },
    extendEnv: false,
    reject: false,
    all: true,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), all: String(result.all) };
}

describe('examples/terraform README', () => {
  it('runs the "Run it" block as written, with the exit code each line states', async () => {
    const readme = readFileSync(join(TERRAFORM_EXAMPLE, 'README.md'), 'utf8');
    const block = /## Run it[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const lines = (block ?? '').split('\n').filter((l) => l.trim() !== '');
    expect(lines.filter((l) => l.startsWith('tfgate apply')).length).toBeGreaterThanOrEqual(3);
    const ws = workspace(TERRAFORM_EXAMPLE);
    for (const line of lines) {
      const match = /^(.*?)\s+#\s*exit (\d+)/.exec(line);
      expect(match, `every line states its exit code: ${line}`).not.toBeNull();
      const [, command, expected] = match!;
      const result = await sh(command!, ws.dir, ws.env);
      expect(result.exitCode, `${command}\n${result.all}`).toBe(Number(expected));
      if (Number(expected) === 3) {
        expect(result.stdout).toMatch(/capability_dependency_destroyed/);
        expect(ws.stateAddresses()).toContain('terraform_data.ledger[0]');
      }
    }
    expect(ws.stateAddresses()).toEqual(['terraform_data.ledger[0]', 'terraform_data.queue']);
    expect(JSON.stringify(ws.readState())).toContain('"v2"');
  });
});
