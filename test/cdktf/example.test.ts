// examples/cdktf, for real: a CDK Terrain app compiled with tsc against the built package (it imports
// `tfgate/cdktn`, resolved through the package's own exports), run with node as the toolkit's CLI runs
// it, against a signed bundle; the platform stack's synthesized JSON is then planned by the real
// terraform. The same app on CDKTF 0.21 (archived) is the compiled example with its two imports changed.
import { generateKeyPairSync } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { execa, execaSync } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constructPathsForPlan } from '../../src/cdktf/index.js';
import { loadDesign } from '../../src/design/index.js';
import { buildBundle } from '../../src/policy/bundle/index.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { REPO_ROOT, TerraformWorkspace } from '../helpers/terraform.js';
import { type ConformanceRecordJson, readStackJson, type TempDir, tempDir } from './helpers.js';

const EXAMPLE_DIR = join(REPO_ROOT, 'examples', 'cdktf');
const EXAMPLE_MAIN = join(EXAMPLE_DIR, 'dist', 'main.js');
/** The compiled example with `cdktn` -> `cdktf` and `tfgate/cdktn` -> `tfgate/cdktf`: the CDKTF 0.21 app. */
const CDKTF_VARIANT_DIR = join(EXAMPLE_DIR, 'dist', 'cdktf-variant');
const CDKTF_VARIANT_MAIN = join(CDKTF_VARIANT_DIR, 'main.js');
const PACKAGE_ENTRY = join(REPO_ROOT, 'dist', 'cdktf', 'index.js');
const TOOLS_CACHE = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tfgate-tools');
/** The CLIs are not dependencies: TFGATE_CDKTN_CLI / TFGATE_CDKTF_CLI, or where setup-tools installs them. */
const CDKTN_CLI = process.env.TFGATE_CDKTN_CLI || installedCli('cdktn-cli-0.24.0', 'cdktn');
const CDKTF_CLI = process.env.TFGATE_CDKTF_CLI || installedCli('cdktf-cli-0.21.0', 'cdktf');
/**
 * cdktf-cli 0.21 loads node-pty, whose prebuilt binaries stop at Node 22's ABI (and node-gyp cannot build
 * one here): run it with this Node when it is 22 or older, else with the oldest line setup-tools installs.
 */
const CDKTF_CLI_NODE = [process.execPath, join(REPO_ROOT, '.tools', 'node-oldest', 'bin', 'node')].find(
  (node) => existsSync(node) && nodeMajor(node) <= 22,
);

function installedCli(dir: string, bin: string): string | undefined {
  const path = join(TOOLS_CACHE, dir, 'node_modules', '.bin', bin);
  return existsSync(path) ? path : undefined;
}

function nodeMajor(node: string): number {
  if (node === process.execPath) return Number(process.versions.node.split('.')[0]);
  return Number(execaSync(node, ['-p', 'process.versions.node']).stdout.split('.')[0]);
}

let work: TempDir;
let bundlePath: string;
let publicKeyPath: string;

beforeAll(async () => {
  if (!existsSync(PACKAGE_ENTRY)) {
    throw new Error(
      `${PACKAGE_ENTRY} is missing: the example imports 'tfgate/cdktf' from the built package; run \`npm run build\` first (npm test does)`,
    );
  }
  const built = statSync(PACKAGE_ENTRY).mtimeMs;
  const stale = readdirSync(join(REPO_ROOT, 'src', 'cdktf')).filter(
    (name) => statSync(join(REPO_ROOT, 'src', 'cdktf', name)).mtimeMs > built,
  );
  if (stale.length > 0) {
    throw new Error(`dist/ is older than src/cdktf (${stale.join(', ')}): run \`npm run build\` first`);
  }
  await execa(process.execPath, [
    join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    EXAMPLE_DIR,
  ]);
  writeCdktfVariant();
  work = tempDir('example');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  bundlePath = join(work.dir, 'bundle.tar.gz');
  publicKeyPath = join(work.dir, 'platform.pem');
  const design = await loadDesign(join(EXAMPLE_DIR, 'design.yaml'));
  writeFileSync(bundlePath, await buildBundle({ design, signingKeyPem: privateKey }));
  writeFileSync(publicKeyPath, publicKey);
}, 120_000);

afterAll(() => work?.cleanup());

/** What a CDKTF 0.21 user of the example changes: the toolkit's import and tfgate's entry point. */
function writeCdktfVariant(): void {
  mkdirSync(CDKTF_VARIANT_DIR, { recursive: true });
  for (const name of readdirSync(join(EXAMPLE_DIR, 'dist')).filter((n) => n.endsWith('.js'))) {
    const source = readFileSync(join(EXAMPLE_DIR, 'dist', name), 'utf8');
    const variant = source
      .replaceAll("from 'cdktn';", "from 'cdktf';")
      .replaceAll("'tfgate/cdktn'", "'tfgate/cdktf'");
    writeFileSync(join(CDKTF_VARIANT_DIR, name), variant);
  }
  expect(readFileSync(CDKTF_VARIANT_MAIN, 'utf8')).toContain("from 'cdktf'");
}

interface Run {
  exitCode: number;
  output: string;
  outdir: string;
}

let runCount = 0;

/** Run the compiled example in a fresh project directory (or `projectDir` again, to keep cdktf.out). */
async function synth(
  options: {
    env?: Record<string, string>;
    context?: Record<string, unknown>;
    projectDir?: string;
    main?: string;
  } = {},
): Promise<Run> {
  const projectDir = options.projectDir ?? join(work.dir, `project-${++runCount}`);
  mkdirSync(projectDir, { recursive: true });
  const result = await execa(process.execPath, [options.main ?? EXAMPLE_MAIN], {
    cwd: projectDir,
    reject: false,
    all: true,
    env: {
      TFGATE_BUNDLE: bundlePath,
      TFGATE_PUBLIC_KEY: publicKeyPath,
      CDKTF_CONTEXT_JSON: JSON.stringify(options.context ?? {}),
      ...options.env,
    },
  });
  return { exitCode: result.exitCode ?? 1, output: result.all ?? '', outdir: join(projectDir, 'cdktf.out') };
}

function record(outdir: string, stack: string): ConformanceRecordJson | undefined {
  return readStackJson(outdir, stack)['//']?.tfgate?.['cdktf-example'];
}

describe('examples/cdktf (CDK Terrain) synthesized with node, against a signed bundle', () => {
  it('passes as committed, with the signed bundle recorded in each stack', async () => {
    const run = await synth();
    expect(run.output).toBe('');
    expect(run.exitCode).toBe(0);
    for (const stack of ['platform', 'storage']) {
      expect(record(run.outdir, stack)).toMatchObject({
        package_id: 'cdktf-example',
        signed: true,
        mode: 'enforce',
      });
    }
    expect(record(run.outdir, 'storage')?.counts).toMatchObject({ creations: 1, findings: 0 });
  });

  it('is blocked by an unsanctioned queue, naming construct, type, kind and rule', async () => {
    const run = await synth({ context: { auditQueue: true } });
    expect(run.exitCode).not.toBe(0);
    expect(run.output).toMatch(
      /\[storage\/audit\/queue\] \[tfgate\] unsanctioned_creation \(high\): aws_sqs_queue aws_sqs_queue\.audit_queue_[0-9A-F]+ \(construct storage\/audit\/queue\) is of kind queue; the approved design of package cdktf-example sanctions only generic_data, object_storage/,
    );
    expect(existsSync(join(run.outdir, 'stacks', 'storage', 'cdk.tf.json'))).toBe(false);
  });

  it('in advisory mode synthesizes and records the finding as a warning', async () => {
    const run = await synth({ context: { auditQueue: true }, env: { TFGATE_ADVISORY: 'true' } });
    expect(run.exitCode).toBe(0);
    expect(record(run.outdir, 'storage')).toMatchObject({
      mode: 'advisory',
      warnings: [
        expect.objectContaining({ rule: 'unsanctioned_creation', construct_path: 'storage/audit/queue' }),
      ],
    });
  });

  it('synthesizes an acknowledged queue and records who-why in cdk.tf.json', async () => {
    const run = await synth({ context: { auditQueue: true, acknowledgeAuditQueue: 'SEC-311 audit trail' } });
    expect(run.exitCode).toBe(0);
    expect(record(run.outdir, 'storage')?.acknowledged).toEqual([
      expect.objectContaining({
        rule: 'unsanctioned_creation',
        kind: 'queue',
        construct_path: 'storage/audit/queue',
        reason: 'SEC-311 audit trail',
      }),
    ]);
  });

  it('is blocked when the ledger a capability depends on disappears since the previous synth', async () => {
    const first = await synth();
    expect(first.exitCode).toBe(0);
    const projectDir = join(first.outdir, '..');
    const second = await synth({ projectDir, context: { retireLedger: true } });
    expect(second.exitCode).not.toBe(0);
    expect(second.output).toContain(
      '[platform/ledger] [tfgate] capability_dependency_destroyed (critical): terraform_data terraform_data.ledger',
    );
  });

  it('refuses a bundle signed by another key before synth', async () => {
    const { publicKey: otherKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const otherKeyPath = join(work.dir, 'other.pem');
    writeFileSync(otherKeyPath, otherKey);
    const run = await synth({ env: { TFGATE_PUBLIC_KEY: otherKeyPath } });
    expect(run.exitCode).toBe(1);
    expect(run.output).toMatch(/^tfgate: .*signature/m);
    expect(existsSync(run.outdir)).toBe(false);
  });

  it('fails closed when no policy source is configured', async () => {
    const run = await synth({ env: { TFGATE_BUNDLE: '', TFGATE_PUBLIC_KEY: '' } });
    expect(run.exitCode).toBe(1);
    expect(run.output).toContain('tfgate: no approved design configured');
  });
});

describe('the same example on CDKTF 0.21 (archived): only the imports differ', () => {
  it('passes as committed, and is blocked by the unsanctioned queue', async () => {
    const passing = await synth({ main: CDKTF_VARIANT_MAIN });
    expect(passing.output).toBe('');
    expect(passing.exitCode).toBe(0);
    expect(record(passing.outdir, 'storage')).toMatchObject({ signed: true, mode: 'enforce' });
    const blocked = await synth({ main: CDKTF_VARIANT_MAIN, context: { auditQueue: true } });
    expect(blocked.exitCode).not.toBe(0);
    expect(blocked.output).toContain('[storage/audit/queue] [tfgate] unsanctioned_creation (high)');
  });
});

describe('addresses and construct paths against a real terraform plan', () => {
  it("the aspect's addresses are the plan's, and plan addresses map back to construct paths", async () => {
    // A design that sanctions no generic_data: every terraform_data is a finding, so the aspect's own
    // addresses are listed in the audit record (advisory mode keeps the synth going).
    const flagAll = join(work.dir, 'flag-all.yaml');
    writeFileSync(
      flagAll,
      'package_id: cdktf-example\nsanctioned_kinds: [object_storage]\ncatalog:\n  terraform_data: generic_data\n',
    );
    const run = await synth({ env: { TFGATE_BUNDLE: '', TFGATE_DESIGN: flagAll, TFGATE_ADVISORY: 'true' } });
    expect(run.exitCode).toBe(0);
    const aspectAddresses = (record(run.outdir, 'platform')?.warnings ?? []).map((w) => w.address).sort();

    const workspace = TerraformWorkspace.create(join(run.outdir, 'stacks', 'platform'));
    try {
      await workspace.init();
      await workspace.plan(['-lock=false']);
      const plan = JSON.parse(await workspace.showPlanJson()) as {
        resource_changes: Array<{ address: string }>;
      };
      const planAddresses = plan.resource_changes.map((c) => c.address).sort();
      expect(planAddresses).toEqual([
        'terraform_data.api_config_8C9E9165',
        'terraform_data.api_release_A0CA9C06[0]',
        'terraform_data.api_release_A0CA9C06[1]',
        'terraform_data.ledger',
      ]);
      expect(aspectAddresses).toEqual([...new Set(planAddresses.map((a) => a.replace(/\[\d+\]$/, '')))]);

      const paths = constructPathsForPlan(run.outdir, 'platform', planAddresses);
      expect(Object.fromEntries(paths)).toEqual({
        'terraform_data.api_config_8C9E9165': 'platform/api/config',
        'terraform_data.api_release_A0CA9C06[0]': 'platform/api/release',
        'terraform_data.api_release_A0CA9C06[1]': 'platform/api/release',
        'terraform_data.ledger': 'platform/ledger',
      });
    } finally {
      workspace.cleanup();
    }
  });
});

describe('tfgate apply --cdktf-stack on the synthesized example (built CLI, real terraform)', () => {
  it('plans the stack in its directory, blocks, and reports construct paths beside addresses; nothing applied', async () => {
    // Every terraform_data is unsanctioned under this design: synth in advisory mode, then the apply blocks.
    const flagAll = join(work.dir, 'flag-all-stack.yaml');
    writeFileSync(
      flagAll,
      'package_id: cdktf-example\nsanctioned_kinds: [object_storage]\ncatalog:\n  terraform_data: generic_data\n',
    );
    const run = await synth({ env: { TFGATE_BUNDLE: '', TFGATE_DESIGN: flagAll, TFGATE_ADVISORY: 'true' } });
    expect(run.exitCode).toBe(0);
    const projectDir = join(run.outdir, '..');
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const strictBundle = join(work.dir, 'flag-all.tar.gz');
    const strictKey = join(work.dir, 'flag-all.pem');
    writeFileSync(
      strictBundle,
      await buildBundle({ design: await loadDesign(flagAll), signingKeyPem: privateKey }),
    );
    writeFileSync(strictKey, publicKey);

    const cliConfig = join(work.dir, 'empty.tfrc');
    writeFileSync(cliConfig, '');
    const env = { TF_CLI_CONFIG_FILE: cliConfig, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
    const stackDir = join(run.outdir, 'stacks', 'platform');
    // As `cdktf deploy` does before planning: init the stack's working directory.
    await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: stackDir, env });
    // The project is a git work tree, as a reader's is: locations are relative to its root.
    await execa('git', ['init', '-q'], { cwd: projectDir });
    await buildCli();
    const route = ['--bundle', strictBundle, '--public-key', strictKey];
    const markdown = join(work.dir, 'cdktf-stack.md');

    const blocked = await runCli(
      [
        'apply',
        '--cdktf-stack',
        'platform',
        ...route,
        '--report',
        `markdown=${markdown}`,
        '--report',
        'text',
      ],
      { cwd: projectDir, env },
    );
    expect(blocked.exitCode).toBe(3);
    expect(blocked.stdout).toMatch(/^FAIL: 4 failures/m);
    expect(blocked.stdout).toContain('terraform_data.ledger (platform/ledger)');
    expect(blocked.stdout).toContain('terraform_data.api_release_A0CA9C06[1] (platform/api/release)');
    // The README shows this report: it is what was printed, line for line (a WHY cut short with "…").
    const readme = readFileSync(join(EXAMPLE_DIR, 'README.md'), 'utf8');
    const sample = /With a design that does not sanction `generic_data`[\s\S]*?\n\n```\n([\s\S]*?)\n```/.exec(
      readme,
    )?.[1];
    expect(
      sample,
      'the README sample after "With a design that does not sanction `generic_data`"',
    ).toBeDefined();
    const sampleLines = (sample as string).split('\n');
    const printed = blocked.stdout
      .slice(blocked.stdout.indexOf('FAIL: '))
      .split('\n')
      .slice(0, sampleLines.length)
      .map((line, i) => {
        const shown = sampleLines[i] as string;
        return shown.endsWith(' …') && line.startsWith(shown.slice(0, -1)) ? shown : line;
      });
    expect(printed.join('\n')).toBe(sample);
    expect(readFileSync(markdown, 'utf8')).toContain('`terraform_data.ledger`<br>platform/ledger');
    expect(blocked.stderr).not.toContain('terraform apply');
    const state = await execa('terraform', ['state', 'list'], { cwd: stackDir, env, reject: false });
    expect(state.stdout.trim()).toBe('');

    const conflicting = await runCli(['plan', '--cdktf-stack', 'platform', '--chdir', stackDir, ...route], {
      cwd: projectDir,
      env,
    });
    expect(conflicting.exitCode).toBe(1);
    expect(conflicting.stderr).toContain(
      `--cdktf-stack platform and --chdir ${stackDir} both say where terraform runs`,
    );

    const unknown = await runCli(['plan', '--cdktf-stack', 'nope', ...route], { cwd: projectDir, env });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/no synthesized CDKTF stack "nope".*stacks in .*: platform, storage/);
  }, 120_000);
});

/** A project directory with the example's cdktf.json, its app pointed at the compiled example. */
function cliProject(main: string): string {
  const dir = join(work.dir, `cli-${++runCount}`);
  mkdirSync(dir, { recursive: true });
  const config = JSON.parse(readFileSync(join(EXAMPLE_DIR, 'cdktf.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ ...config, app: `node ${main}` }, null, 2));
  return dir;
}

/** `<cli> synth` run by `node` (which also runs the app: the CLI starts `node <main>` from PATH). */
async function cliSynth(cli: CliRun, context: Record<string, unknown>, env: Record<string, string> = {}) {
  const dir = cliProject(cli.main);
  const result = await execa(cli.node, [realpathSync(cli.bin), 'synth'], {
    cwd: dir,
    reject: false,
    all: true,
    env: {
      PATH: `${dirname(cli.node)}${delimiter}${process.env.PATH ?? ''}`,
      TFGATE_BUNDLE: bundlePath,
      TFGATE_PUBLIC_KEY: publicKeyPath,
      CDKTF_CONTEXT_JSON: JSON.stringify(context),
      CDKTF_HOME: join(dir, '.cdktf-home'),
      CHECKPOINT_DISABLE: '1',
      CI: '1',
      FORCE_COLOR: '0',
      ...env,
    },
  });
  return { exitCode: result.exitCode ?? 1, output: result.all ?? '', outdir: join(dir, 'cdktf.out') };
}

interface CliRun {
  bin: string;
  node: string;
  main: string;
}

const CLIS: Array<{ title: string; cli: CliRun | undefined }> = [
  {
    title:
      'examples/cdktf through the real `cdktn synth` (CDK Terrain CLI 0.24; skipped when not installed: see TFGATE_CDKTN_CLI)',
    cli: CDKTN_CLI ? { bin: CDKTN_CLI, node: process.execPath, main: EXAMPLE_MAIN } : undefined,
  },
  {
    title:
      'its CDKTF variant through the real `cdktf synth` (cdktf-cli 0.21 on Node <= 22; skipped when either is missing: see TFGATE_CDKTF_CLI)',
    cli:
      CDKTF_CLI && CDKTF_CLI_NODE
        ? { bin: CDKTF_CLI, node: CDKTF_CLI_NODE, main: CDKTF_VARIANT_MAIN }
        : undefined,
  },
];

for (const { title, cli } of CLIS) {
  describe.skipIf(!cli)(title, () => {
    it('passes, and fails the CLI on a finding (node.addValidation)', async () => {
      const passing = await cliSynth(cli!, {});
      expect(passing.output).toContain('Generated Terraform code for the stacks');
      expect(passing.exitCode).toBe(0);
      expect(record(passing.outdir, 'storage')?.signed).toBe(true);

      const blocked = await cliSynth(cli!, { auditQueue: true });
      expect(blocked.exitCode).not.toBe(0);
      expect(blocked.output).toContain('[storage/audit/queue] [tfgate] unsanctioned_creation (high)');
    });

    it('prints advisory findings as CLI warnings and synthesizes', async () => {
      const run = await cliSynth(cli!, { auditQueue: true }, { TFGATE_ADVISORY: 'true' });
      expect(run.exitCode).toBe(0);
      expect(run.output).toMatch(/WARN \[storage\/audit\/queue\]: \[tfgate\] ADVISORY MODE, not blocking/);
    });
  });
}
