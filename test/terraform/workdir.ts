// A throwaway terraform (or tofu) working directory with the environment it needs here (no ~/.terraformrc).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

export interface Workdir {
  dir: string;
  env: NodeJS.ProcessEnv;
  write(name: string, content: string): Promise<void>;
  /** `<bin> state list` (empty when there is no state). */
  stateList(): Promise<string[]>;
  terraform(args: string[]): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }>;
  dispose(): Promise<void>;
}

/** A temporary directory holding `files`; `bin` (default terraform) runs its terraform() and stateList(). */
export async function makeWorkdir(
  files: Record<string, string>,
  { bin = 'terraform' }: { bin?: string } = {},
): Promise<Workdir> {
  const dir = await mkdtemp(join(tmpdir(), 'tfgate-tftest-'));
  const rc = join(dir, '.empty.tfrc');
  await writeFile(rc, '');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TF_CLI_CONFIG_FILE: rc,
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
  };
  const write = (name: string, content: string) => writeFile(join(dir, name), content);
  for (const [name, content] of Object.entries(files)) await write(name, content);
  const terraform = async (args: string[]) => {
    const r = await execa(bin, args, { cwd: dir, env, reject: false, stdin: 'ignore' });
    return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  return {
    dir,
    env,
    write,
    terraform,
    async stateList() {
      const r = await terraform(['state', 'list']);
      return r.stdout.split('\n').filter((l) => l.trim() !== '');
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

export const ONE_RESOURCE = `resource "terraform_data" "a" {\n  input = var.value\n}\nvariable "value" {\n  type    = string\n  default = "one"\n}\n`;

export const FAILING_PRECONDITION = `resource "terraform_data" "a" {
  input = "x"
  lifecycle {
    precondition {
      condition     = var.ok
      error_message = "ok must be true"
    }
  }
}
variable "ok" {
  type    = bool
  default = false
}
`;
