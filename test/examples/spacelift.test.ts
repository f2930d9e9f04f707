// examples/spacelift, run as Spacelift would run it, through SpaceliftRunDouble (spacelift-double.ts: Spacelift
// cannot run here), against real terraform, the real service on loopback, the built tfgate and the real opa:
// the hooks stack with its plan policy on tfgate's custom input, the custom workflow tool, and the runner image
// recipe (Docker's own parser in test/spacelift, then its install and smoke steps in a sandbox).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { execa, execaSync } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildCli, REPO_ROOT } from '../helpers/cli.js';
import { createApprovedPackage, startService, type TestService } from '../helpers/service.js';
import { TerraformWorkspace } from '../helpers/terraform.js';
import {
  type RunOptions,
  runtimeConfigSchema,
  SpaceliftRunDouble,
  WORKFLOW_COMMANDS,
} from './spacelift-double.js';
import { tfgateBinDir } from './tfgate-on-path.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'spacelift');
const POLICY = join(EXAMPLE, 'policies', 'tfgate-plan.rego');
const designText = (file: string) => readFileSync(join(REPO_ROOT, 'examples', 'terraform', file), 'utf8');

let svc: TestService;
let imageBin: string;
const workspaces: TerraformWorkspace[] = [];

beforeAll(async () => {
  await buildCli();
  // The runner image's tools: tfgate (baked in), terraform, and the base system.
  imageBin = tfgateBinDir('spacelift-image-bin-');
  svc = await startService();
});

afterAll(async () => {
  await svc?.stop();
  rmSync(imageBin, { recursive: true, force: true });
});

afterEach(() => {
  for (const ws of workspaces.splice(0)) ws.cleanup();
});

/** Where terraform is (the runner image has its own; here, the machine's). */
function terraformDir(): string {
  return dirname(execaSync('sh', ['-c', 'command -v terraform']).stdout.trim());
}

function stackRun(stackId: string, overrides: Partial<RunOptions> = {}) {
  const ws = TerraformWorkspace.create(EXAMPLE);
  workspaces.push(ws);
  const options: RunOptions = {
    contextEnv: { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey },
    imagePath: [imageBin, terraformDir(), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter),
    planPolicies: [POLICY],
    baseEnv: {
      TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE),
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
      NO_COLOR: '1',
    },
    ...overrides,
  };
  return { ws, run: new SpaceliftRunDouble(ws.dir, stackId, ws.dir), options };
}

describe('examples/spacelift configuration', () => {
  const configText = readFileSync(join(EXAMPLE, '.spacelift', 'config.yml'), 'utf8');
  const config = runtimeConfigSchema.parse(parseYaml(configText));

  it('uses only documented runtime configuration keys, and workflow.yml defines every command', () => {
    expect(Object.keys(config.stacks ?? {}).sort()).toEqual([
      'example-terraform-custom',
      'example-terraform-hooks',
    ]);
    const workflow = parseYaml(readFileSync(join(EXAMPLE, '.spacelift', 'workflow.yml'), 'utf8')) as Record<
      string,
      string
    >;
    expect(Object.keys(workflow).sort()).toEqual([...WORKFLOW_COMMANDS].sort());
    expect(workflow.plan).toMatch(/^tfgate plan /);
    expect(workflow.apply).toMatch(/^tfgate apply /);
  });

  it('runs on a runner image with tfgate baked in, and no hook installs anything', () => {
    expect(config.stack_defaults?.runner_image).toMatch(/spacelift-runner-tfgate/);
    const allHooks = [config.stack_defaults, ...Object.values(config.stacks ?? {})].flatMap((settings) =>
      Object.entries(settings ?? {})
        .filter(([key]) => /^(before|after)_/.test(key))
        .flatMap(([, commands]) => commands as string[]),
    );
    expect(allHooks.length).toBeGreaterThan(0);
    for (const hook of allHooks) {
      expect(hook).not.toMatch(
        /\b(npm|yarn|pnpm)\s+(i|install|add)\b|\bapk\s+add\b|\bpip3?\s+install\b|\|\s*(ba)?sh\b/,
      );
    }
  });

  it('the plan policy passes its own tests with the real opa', async () => {
    const result = await execa('opa', ['test', join(EXAMPLE, 'policies'), '-v'], { reject: false });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/PASS: 7\/7/);
  });
});

describe('examples/spacelift hooks stack: tfgate as a plan policy custom input', () => {
  it('a sanctioned plan passes the plan policy and is applied after confirmation', async () => {
    await createApprovedPackage(svc, designText('design.yaml'));
    const { ws, run, options } = stackRun('example-terraform-hooks');
    const result = await run.run(options);
    expect(
      result.phases.map((p) => `${p.phase} ${p.exitCode}`),
      result.phases.at(-1)?.log,
    ).toEqual(['init 0', 'plan 0', 'apply 0']);
    expect(result.deny).toEqual([]);
    expect(result.policyInput?.third_party_metadata.custom.tfgate).toMatchObject({
      package_id: 'example-terraform',
      decision: 'pass',
    });
    expect(result.state).toBe('FINISHED');
    expect(ws.stateAddresses()).toEqual(['terraform_data.ledger[0]', 'terraform_data.queue']);
  });

  it('a blocked plan: the hook passes with the findings in the log, the plan policy denies each, nothing is applied', async () => {
    await createApprovedPackage(svc, designText('design-strict.yaml'));
    const { ws, run, options } = stackRun('example-terraform-hooks');
    const result = await run.run(options);
    const plan = result.phases.find((p) => p.phase === 'plan')!;
    expect(plan.exitCode).toBe(0);
    expect(plan.log).toMatch(/^FAIL: 2 failures/m);
    expect(result.policyInput?.third_party_metadata.custom.tfgate).toMatchObject({ decision: 'block' });
    expect(result.deny).toHaveLength(2);
    expect(result.deny[0]).toMatch(
      /^tfgate unsanctioned_creation \(high\): creates terraform_data\.ledger\[0\]/,
    );
    expect(result.deny[1]).toMatch(/^tfgate unsanctioned_creation \(high\): creates terraform_data\.queue/);
    expect(result.state).toBe('FAILED');
    expect(result.phases.map((p) => p.phase)).not.toContain('apply');
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('no decision (service down): the after_plan hook fails the run, before any policy or apply', async () => {
    await createApprovedPackage(svc, designText('design.yaml'));
    const { ws, run, options } = stackRun('example-terraform-hooks');
    const result = await run.run({
      ...options,
      contextEnv: { ...options.contextEnv, TFGATE_BASE_URL: 'http://127.0.0.1:9' },
    });
    const plan = result.phases.at(-1)!;
    expect(plan.phase).toBe('plan');
    expect(plan.exitCode).toBe(4);
    expect(plan.log).toContain('could not reach the tfgate service');
    expect(result.state).toBe('FAILED');
    expect(result.policyInput).toBeUndefined();
    // The custom input says so, never an earlier run's result (the plan policy denies a result it cannot read).
    expect(JSON.parse(readFileSync(join(ws.dir, 'tfgate.custom.spacelift.json'), 'utf8'))).toMatchObject({
      package_id: 'example-terraform',
      decision: 'no_decision',
      error: { message: expect.stringContaining('could not reach the tfgate service') },
    });
  });

  it('the design tightens while the run waits for confirmation: before_apply blocks in the new container', async () => {
    await createApprovedPackage(svc, designText('design.yaml'));
    const { ws, run, options } = stackRun('example-terraform-hooks');
    const result = await run.run({
      ...options,
      beforeConfirm: async () => {
        await createApprovedPackage(svc, designText('design-strict.yaml'));
      },
    });
    const apply = result.phases.at(-1)!;
    expect(apply.phase).toBe('apply');
    expect(apply.exitCode).toBe(3);
    expect(apply.log).toMatch(/^FAIL: 2 failures/m);
    expect(result.state).toBe('FAILED');
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('the plan policy denies a run whose hook wrote no result (fail closed)', async () => {
    await createApprovedPackage(svc, designText('design.yaml'));
    const { ws, run, options } = stackRun('example-terraform-hooks');
    const planned = await run.run({ ...options, noConfirm: true, planPolicies: [] });
    expect(planned.state).toBe('UNCONFIRMED');
    rmSync(join(ws.dir, 'tfgate.custom.spacelift.json'));
    const input = { ...planned.policyInput, third_party_metadata: { custom: {} } };
    const { deny } = await run.evaluatePlanPolicies(input, [POLICY]);
    expect(deny).toEqual([expect.stringMatching(/^tfgate: no result for this plan/)]);
  });
});

describe('examples/spacelift custom workflow tool stack', () => {
  it('tfgate plan and tfgate apply in place of terraform: a sanctioned plan is applied', async () => {
    await createApprovedPackage(svc, designText('design.yaml'));
    const { ws, run, options } = stackRun('example-terraform-custom', { planPolicies: [] });
    const result = await run.run(options);
    expect(
      result.phases.map((p) => `${p.phase} ${p.exitCode}`),
      result.phases.at(-1)?.log,
    ).toEqual(['init 0', 'plan 0', 'apply 0']);
    expect(ws.stateAddresses()).toEqual(['terraform_data.ledger[0]', 'terraform_data.queue']);
  });

  it('a blocked plan fails the plan command and leaves no plan file to confirm', async () => {
    await createApprovedPackage(svc, designText('design-strict.yaml'));
    const { ws, run, options } = stackRun('example-terraform-custom', { planPolicies: [] });
    const result = await run.run(options);
    expect(result.phases.at(-1)).toMatchObject({ phase: 'plan', exitCode: 3 });
    expect(existsSync(join(ws.dir, 'spacelift.plan'))).toBe(false);
    expect(ws.stateAddresses()).toEqual([]);
  });
});

interface RunnerStep {
  user: string;
  script: string;
  bind_targets: string[] | null;
  cache_targets: string[] | null;
}

describe('examples/spacelift runner image recipe', () => {
  it("Docker's parser and linter accept it; its install step works as root and tfgate runs as UID 1983, read-only", async () => {
    const sandbox = mkdtempSync(join(tmpdir(), 'spacelift-runner-image-'));
    chmodSync(sandbox, 0o755);
    try {
      const stepsFile = join(sandbox, 'steps.json');
      const checked = await execa('go', ['test', '-count=1', './...'], {
        cwd: join(REPO_ROOT, 'test', 'spacelift'),
        env: { TFGATE_RUNNER_STEPS: stepsFile },
        reject: false,
        all: true,
      });
      expect(checked.exitCode, String(checked.all)).toBe(0);
      const [system, install, smoke] = JSON.parse(readFileSync(stepsFile, 'utf8')) as RunnerStep[];
      // Alpine's nodejs and npm: apk cannot run on this Debian machine, so the sandbox stands in with this
      // machine's Node.js (the PATH below), and --engine-strict in the install step checks it as it would Alpine's.
      expect(system).toMatchObject({ user: 'root', script: 'apk add --no-cache nodejs npm' });
      expect(install?.user).toBe('root');
      expect(smoke?.user).toBe('spacelift');

      // The build context holds the tarball (`npm pack`, as the recipe's comment says before the first release).
      const context = join(sandbox, 'context');
      mkdirSync(context);
      const packed = await execa('npm', ['pack', '--ignore-scripts', '--pack-destination', context], {
        cwd: REPO_ROOT,
      });
      const tarball = packed.stdout.trim().split('\n').at(-1)!;
      // Doubles of the RUN's mounts: the build context's bind mount is the context directory, npm's cache
      // mount a cache directory kept between runs; the image's global prefix is a directory in the sandbox.
      let script = install!.script;
      for (const target of install!.bind_targets ?? []) script = script.replaceAll(target, context);
      const prefix = join(sandbox, 'usr', 'local');
      const nodeDir = dirname(process.execPath);
      const installed = await execa('sh', ['-e', '-c', script], {
        // This machine's npm configuration (registry, CA) stands in for the image's; only the prefix moves.
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TFGATE_|npm_)/i.test(k))),
          PATH: [nodeDir, '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter),
          TFGATE_PACKAGE: `./${tarball}`,
          npm_config_prefix: prefix,
          npm_config_cache: join(homedir(), '.cache', 'tfgate-tools', 'npm-runner-image-cache'),
        },
        extendEnv: false,
        reject: false,
        all: true,
      });
      expect(installed.exitCode, String(installed.all)).toBe(0);

      // The smoke step, and a write into the installed tool, as Spacelift's run user (UID 1983).
      const asRunUser = (command: string) =>
        execa('setpriv', ['--reuid=1983', '--regid=1983', '--clear-groups', 'sh', '-c', command], {
          env: {
            PATH: [join(prefix, 'bin'), nodeDir, '/usr/bin', '/bin'].join(delimiter),
            HOME: '/nonexistent',
          },
          extendEnv: false,
          reject: false,
          all: true,
        });
      const ran = await asRunUser(smoke!.script);
      expect(ran.exitCode, String(ran.all)).toBe(0);
      const tool = join(prefix, 'lib', 'node_modules', 'tfgate', 'package.json');
      expect(existsSync(tool)).toBe(true);
      const tampered = await asRunUser(`echo x >> "${tool}"`);
      expect(tampered.exitCode).not.toBe(0);
    } finally {
      rmSync(sandbox, { recursive: true, force: true });
    }
  }, 300_000);
});
