// examples/terraform and examples/spacelift, run as written: the README's commands, and every Spacelift
// command and hook with the variables Spacelift sets, against real terraform and the real service on
// loopback. tfgate is the built CLI, on PATH as `tfgate`. examples/atlantis runs through Atlantis's own code
// instead: test/examples/atlantis.test.ts.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildCli, CLI_MAIN } from '../helpers/cli.js';
import { createApprovedPackage, startService, type TestService } from '../helpers/service.js';
import { TerraformWorkspace } from '../helpers/terraform.js';

const EXAMPLES = resolve(import.meta.dirname, '..', '..', 'examples');
const TERRAFORM_EXAMPLE = join(EXAMPLES, 'terraform');

let binDir: string;
let svc: TestService;
const workspaces: TerraformWorkspace[] = [];

beforeAll(async () => {
  await buildCli();
  binDir = mkdtempSync(join(tmpdir(), 'tfgate-bin-'));
  const shim = join(binDir, 'tfgate');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLI_MAIN}" "$@"\n`);
  chmodSync(shim, 0o755);
  svc = await startService();
});

afterAll(async () => {
  await svc?.stop();
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

const designText = (file: string) => readFileSync(join(TERRAFORM_EXAMPLE, file), 'utf8');

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

/** The subset of Go templates Spacelift's workflow.yml uses: {{ .X }}, {{ if not .X }}…{{ end }}, {{ range .X }}…{{ . }}…{{ end }}. */
function renderGoTemplate(template: string, data: Record<string, unknown>): string {
  let out = template.replace(
    /\{\{ range \.(\w+) \}\}([\s\S]*?)\{\{ end \}\}/g,
    (_m, key: string, body: string) =>
      ((data[key] as unknown[] | undefined) ?? [])
        .map((item) => body.replace(/\{\{ \. \}\}/g, String(item)))
        .join(''),
  );
  out = out.replace(/\{\{ if not \.(\w+) \}\}([\s\S]*?)\{\{ end \}\}/g, (_m, key: string, body: string) =>
    data[key] ? '' : body,
  );
  out = out.replace(/\{\{ \.(\w+) \}\}/g, (_m, key: string) => String(data[key]));
  if (out.includes('{{')) throw new Error(`template construct not handled: ${out}`);
  return out;
}

describe('examples/spacelift', () => {
  const spaceliftDir = join(EXAMPLES, 'spacelift');
  const config = parseYaml(readFileSync(join(spaceliftDir, '.spacelift', 'config.yml'), 'utf8')) as {
    stack_defaults: { environment: Record<string, string>; before_init: string[] };
    stacks: Record<string, { terraform_workflow_tool: string; after_plan?: string[] }>;
  };
  const workflow = parseYaml(
    readFileSync(join(spaceliftDir, '.spacelift', 'workflow.yml'), 'utf8'),
  ) as Record<string, string>;
  const spaceliftEnv = (ws: TerraformWorkspace): NodeJS.ProcessEnv => ({
    ...ws.env,
    ...config.stack_defaults.environment,
    TFGATE_BASE_URL: svc.baseUrl,
    TFGATE_API_KEY: svc.apiKey,
  });

  it('workflow.yml defines every command Spacelift requires, with tfgate for plan and apply', () => {
    for (const command of [
      'init',
      'workspaceSelect',
      'workspaceNew',
      'plan',
      'showState',
      'showPlan',
      'getOutputs',
      'apply',
      'destroy',
    ]) {
      expect(workflow[command], command).toMatch(/\S/);
    }
    expect(workflow.plan).toMatch(/^tfgate plan /);
    expect(workflow.apply).toMatch(/^tfgate apply /);
    expect(config.stacks['example-terraform-custom']?.terraform_workflow_tool).toBe('CUSTOM');
  });

  it('hooks: the after_plan hook blocks a plan the design forbids (the run fails), and passes a sanctioned one', async () => {
    const hooks = config.stacks['example-terraform-hooks']!.after_plan!;
    expect(hooks.join('\n')).toContain('spacelift.plan');
    for (const [designFile, expected] of [
      ['design-strict.yaml', 3],
      ['design.yaml', 0],
    ] as const) {
      await createApprovedPackage(svc, designText(designFile));
      const ws = workspace(spaceliftDir);
      const env = spaceliftEnv(ws);
      // Spacelift's own Terraform workflow, then the hooks.
      expect((await sh('terraform init -input=false -no-color', ws.dir, env)).exitCode).toBe(0);
      const plan = await sh(
        'terraform plan -input=false -lock=true -no-color -out=spacelift.plan',
        ws.dir,
        env,
      );
      expect(plan.exitCode, plan.all).toBe(0);
      for (const hook of hooks) {
        const result = await sh(hook, ws.dir, env);
        expect(result.exitCode, result.all).toBe(expected);
        if (expected === 3) expect(result.stdout).toMatch(/^FAIL/);
      }
    }
  });

  it('custom workflow tool: plan, showPlan and apply rendered as Spacelift does; targets and refresh pass through', async () => {
    await createApprovedPackage(svc, designText('design.yaml'));
    const ws = workspace(spaceliftDir);
    const env = spaceliftEnv(ws);
    const data = {
      PlanFileName: 'spacelift.plan',
      Lock: true,
      Refresh: false,
      Targets: ['terraform_data.queue'],
      WorkspaceName: 'default',
    };
    const run = async (command: string) => sh(renderGoTemplate(workflow[command]!, data), ws.dir, env);
    expect((await run('init')).exitCode).toBe(0);
    const plan = await run('plan');
    expect(plan.exitCode, plan.all).toBe(0);
    const show = await run('showPlan');
    expect(show.exitCode).toBe(0);
    const planJson = JSON.parse(show.stdout) as { resource_changes: Array<{ address: string }> };
    expect(planJson.resource_changes.map((c) => c.address)).toEqual(['terraform_data.queue']);
    const apply = await run('apply');
    expect(apply.exitCode, apply.all).toBe(0);
    expect(ws.stateAddresses()).toEqual(['terraform_data.queue']);
    expect(JSON.parse((await run('getOutputs')).stdout)).toHaveProperty('queue_id');
  });

  it('custom workflow tool: a blocked plan fails the plan command and leaves no plan file', async () => {
    await createApprovedPackage(svc, designText('design-strict.yaml'));
    const ws = workspace(spaceliftDir);
    const env = spaceliftEnv(ws);
    const data = {
      PlanFileName: 'spacelift.plan',
      Lock: true,
      Refresh: true,
      Targets: [],
      WorkspaceName: 'default',
    };
    const plan = await sh(renderGoTemplate(workflow.plan!, data), ws.dir, env);
    expect(plan.exitCode).toBe(3);
    expect(existsSync(join(ws.dir, 'spacelift.plan'))).toBe(false);
  });
});
