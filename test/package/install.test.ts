// tfgate as users install it, through a real npm registry (Verdaccio on loopback, no uplink): published
// by `npm publish` from a clean copy of this checkout (so prepack builds it), then installed the ways the
// README's Install section and the examples say: `npm install --global` (the GitLab example's own line),
// `npx`, a tarball from `npm pack`, `npm link`, and as a dependency of a CDK Terrain project. Every
// command runs the installed package, from a directory outside this repository.
import { generateKeyPairSync } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, normalize } from 'node:path';
import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { driftedPackage } from '../commands/gate-fixtures.js';
import { REPO_ROOT } from '../helpers/cli.js';
import type { TestService } from '../helpers/service.js';
import { lockClosure, publishFromCache, type Registry, shellEnv, startVerdaccio } from './registry.js';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  engines: Record<string, string>;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
};
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');
/** npm installs, builds and a service: on 2 cores shared with the rest of the suite, minutes, not seconds. */
const SLOW = { timeout: 300_000 };

interface PackResult {
  name: string;
  version: string;
  integrity: string;
  filename: string;
  files: Array<{ path: string }>;
}

let work: string;
let clone: string;
let registry: Registry;
let published: PackResult;
/** The global prefix the GitLab example's install line installed into. */
let globalPrefix: string;
/** The home (npm cache and config) of the user who installs from the registry; one, as on a machine. */
let npmUser: string;

async function run(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
) {
  const result = await execa(file, args, {
    ...options,
    extendEnv: false,
    reject: false,
    all: true,
    input: '',
  });
  return {
    exitCode: result.exitCode ?? -1,
    stdout: result.stdout,
    stderr: result.stderr,
    all: result.all ?? '',
  };
}

/** Run a CI job's script lines as its shell would (bash, -e, pipefail). */
function runScript(script: string, options: { cwd: string; env: Record<string, string> }) {
  return run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], options);
}

function freshDir(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The working tree as a fresh clone would have it (tracked and new files, nothing ignored: no dist/). */
async function cleanCopy(to: string): Promise<void> {
  const { stdout } = await execa('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
  });
  for (const path of stdout.split('\0').filter(Boolean)) {
    const from = join(REPO_ROOT, path);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(dirname(join(to, path)), { recursive: true });
    copyFileSync(from, join(to, path));
    chmodSync(join(to, path), statSync(from).mode);
  }
}

const gitlab = parse(readFileSync(join(REPO_ROOT, 'examples', 'gitlab-ci', '.gitlab-ci.yml'), 'utf8')) as {
  variables: Record<string, string>;
  'gate:tfgate': { before_script: string[]; script: string[] };
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tfgate-package-'));
  clone = join(work, 'clone');
  await cleanCopy(clone);
  expect(existsSync(join(clone, 'dist'))).toBe(false);
  // As a person with a fresh clone does; --offline: from the npm cache the suite's own `npm ci` filled.
  const ci = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], {
    cwd: clone,
    env: shellEnv(),
  });
  expect(ci.exitCode, ci.all).toBe(0);

  registry = await startVerdaccio(freshDir('registry'));
  npmUser = freshDir('npm-user');
  // tfgate's dependencies, and what the consumer project below adds (CDK Terrain, constructs, Node types).
  await publishFromCache(
    registry,
    freshDir('cache-tarballs'),
    lockClosure([...Object.keys(manifest.dependencies), 'cdktn', 'constructs', '@types/node']),
  );
  const publish = await run('npm', ['publish', '--json'], {
    cwd: clone,
    env: registry.npmEnv(freshDir('publisher')),
  });
  expect(publish.exitCode, publish.all).toBe(0);
  // npm reads package.json before prepack has built the bin, and says so; nothing else may be amiss.
  const warnings = publish.stderr.split('\n').filter((line) => /^npm (warn|error)/.test(line));
  expect(warnings.filter((line) => !line.endsWith(`No bin file found at ${manifest.bin.tfgate}`))).toEqual(
    [],
  );
  published = (JSON.parse(publish.stdout) as Record<string, PackResult>)[manifest.name]!;
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the package npm publish builds from a clean clone', () => {
  it('is built by prepack: the CLI with its shebang, every export, and no source maps', () => {
    expect(published).toMatchObject({ name: manifest.name, version: manifest.version });
    const files = new Set(published.files.map((f) => f.path));
    const bin = manifest.bin.tfgate!;
    expect(files).toContain(bin);
    expect(readFileSync(join(clone, bin), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    const targets = Object.values(manifest.exports).flatMap((t) =>
      typeof t === 'string' ? [t] : Object.values(t),
    );
    for (const target of targets) expect(files, target).toContain(normalize(target));
    expect([...files].filter((f) => f.endsWith('.map'))).toEqual([]);
    for (const file of [...files].filter((f) => f.endsWith('.js'))) {
      expect(readFileSync(join(clone, file), 'utf8'), file).not.toContain('sourceMappingURL');
    }
    expect([...files].filter((f) => /^(src|test|bench|scripts)\//.test(f))).toEqual([
      'src/service/README.md',
    ]);
  });

  it('carries the Apache-2.0 LICENSE its package.json names, and everything its READMEs link to', () => {
    const files = published.files.map((f) => f.path);
    expect(manifest.license).toBe('Apache-2.0');
    expect(files).toContain('LICENSE');
    const license = readFileSync(join(clone, 'LICENSE'), 'utf8');
    expect(license).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(license).toContain('END OF TERMS AND CONDITIONS');
    const markdown = files.filter((f) => f.endsWith('.md'));
    expect(markdown).toContain('README.md');
    for (const doc of markdown) {
      const text = readFileSync(join(clone, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!) || target!.startsWith('#')) continue;
        const path = normalize(join(dirname(doc), target!.split('#')[0]!)).replace(/\/$/, '');
        const shipped = files.some((f) => f === path || f.startsWith(`${path}/`));
        expect(shipped, `${doc} links to ${target}, which the package does not carry`).toBe(true);
      }
    }
  });

  it('ships nothing from a working tree that a clone lacks (build output, examples run in place)', async () => {
    const dryRun = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO_ROOT,
      env: shellEnv(),
    });
    expect(dryRun.exitCode, dryRun.all).toBe(0);
    const [packed] = JSON.parse(dryRun.stdout) as PackResult[];
    const tracked = new Set(
      (
        await execa('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT })
      ).stdout.split('\n'),
    );
    const untracked = packed!.files
      .map((f) => f.path)
      .filter((f) => !f.startsWith('dist/') && !tracked.has(f));
    expect(untracked).toEqual([]);
  });

  it('is served by a registry with no uplink, with its bin and engines (a package nobody published: 404)', async () => {
    expect((await fetch(`${registry.url}left-pad`)).status).toBe(404);
    const packument = (await (await fetch(`${registry.url}tfgate`)).json()) as {
      versions: Record<string, { bin?: unknown; engines?: unknown; license?: unknown }>;
    };
    expect(packument.versions[manifest.version]).toMatchObject({
      bin: manifest.bin,
      engines: manifest.engines,
      license: 'Apache-2.0',
    });
  });
});

describe('npm install --global, as the examples do', SLOW, () => {
  const tfgate = (...args: string[]) =>
    run(join(globalPrefix, 'bin', 'tfgate'), args, { cwd: freshDir('user'), env: shellEnv() });

  beforeAll(async () => {
    const [install] = gitlab['gate:tfgate'].before_script;
    expect(install).toBe(`npm install --global ${manifest.name}@${manifest.version}`);
    globalPrefix = freshDir('global');
    const result = await runScript(install!, {
      cwd: freshDir('gitlab-job'),
      env: registry.npmEnv(npmUser, { npm_config_prefix: globalPrefix }),
    });
    expect(result.exitCode, result.all).toBe(0);
  }, 180_000);

  it('tfgate --version prints the package version', async () => {
    const result = await tfgate('--version');
    expect(result).toMatchObject({ exitCode: 0, stdout: manifest.version, stderr: '' });
  });

  it('bundle build and verify, then check a plan against the bundle: blocked (3) and passing (0)', async () => {
    const dir = freshDir('bundle');
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    writeFileSync(join(dir, 'signing.pem'), privateKey, { mode: 0o600 });
    writeFileSync(join(dir, 'platform.pem'), publicKey);
    const bundle = join(dir, 'bundle.tar.gz');
    const design = join(FIXTURES, 'terraform', 'destroy', 'design.yaml');
    const built = await tfgate(
      'bundle',
      'build',
      '--design',
      design,
      '--signing-key',
      join(dir, 'signing.pem'),
      '--output',
      bundle,
    );
    expect(built.exitCode, built.stderr).toBe(0);
    const verified = await tfgate('bundle', 'verify', bundle, '--public-key', join(dir, 'platform.pem'));
    expect(verified.exitCode, verified.stderr).toBe(0);
    const route = ['--bundle', bundle, '--public-key', join(dir, 'platform.pem')];
    const blocked = await tfgate('check', ...route, '--plan-json', join(FIXTURES, 'plans', 'destroy.json'));
    expect(blocked.exitCode, blocked.stderr).toBe(3);
    expect(blocked.stdout).toMatch(/^FAIL: \d+ failures/);
    expect(blocked.stdout).toContain('capability_dependency_destroyed');
    const passing = await tfgate('check', ...route, '--plan-json', join(FIXTURES, 'plans', 'no-change.json'));
    expect(passing.exitCode, passing.stderr).toBe(0);
    expect(passing.stdout).toMatch(/^PASS: 0 blocking findings/);
  });

  it('tfgate serve starts, serves the dashboard, and the GitLab example gate job blocks on open drift against it', async () => {
    const apiKey = `tfg_pkg_${'k'.repeat(32)}`;
    const serve = execa(
      join(globalPrefix, 'bin', 'tfgate'),
      ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', freshDir('serve-data')],
      {
        cwd: freshDir('serve'),
        env: shellEnv({ TFGATE_BOOTSTRAP_API_KEY: apiKey }),
        extendEnv: false,
        reject: false,
      },
    );
    try {
      const baseUrl = await new Promise<string>((resolve, reject) => {
        createInterface({ input: serve.stdout! }).on('line', (line) => {
          const url = /"msg":"listening".*"url":"([^"]+)"/.exec(line)?.[1];
          if (url) resolve(url);
        });
        void serve.then((result) => reject(new Error(`tfgate serve exited: ${result.stderr}`)));
      });
      await driftedPackage({ baseUrl, apiKey } as TestService, gitlab.variables.TFGATE_PACKAGE);
      const job = await runScript(gitlab['gate:tfgate'].script.join('\n'), {
        cwd: freshDir('gitlab-gate'),
        env: shellEnv({
          ...gitlab.variables,
          PATH: `${join(globalPrefix, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
          TFGATE_BASE_URL: baseUrl,
          TFGATE_API_KEY: apiKey,
        }),
      });
      expect(job.exitCode, job.all).toBe(3);
      expect(job.stdout).toMatch(/^FAIL: 2 failures/);
      expect(readFileSync(join(work, 'gitlab-gate', 'tfgate-gate.xml'), 'utf8')).toContain('failures="2"');
      // The dashboard ships inside the package: its pages and stylesheet, with no file beside the bundle.
      const login = await fetch(`${baseUrl}/ui/login`);
      expect(login.status).toBe(200);
      expect(login.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(await login.text()).toContain('<label for="api_key">API key</label>');
      const style = await fetch(`${baseUrl}/ui/static/style.css`);
      expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect(await style.text()).toContain(':focus-visible');
    } finally {
      serve.kill('SIGTERM');
      await serve;
    }
  });
});

describe('the other ways to install', SLOW, () => {
  it('npx tfgate@<version> in an empty directory', async () => {
    const result = await run('npx', ['--yes', `${manifest.name}@${manifest.version}`, '--version'], {
      cwd: freshDir('npx'),
      env: registry.npmEnv(npmUser),
    });
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stdout).toBe(manifest.version);
  });

  it('from a clone before the first release: npm pack (the very tarball published) + npm install -g of it, or npm link', async () => {
    rmSync(join(clone, 'dist'), { recursive: true, force: true });
    const tarballPrefix = freshDir('prerelease-global');
    const env = registry.npmEnv(npmUser, { npm_config_prefix: tarballPrefix });
    const pack = await run('npm', ['pack', '--json'], { cwd: clone, env });
    expect(pack.exitCode, pack.all).toBe(0);
    const [packed] = JSON.parse(pack.stdout) as PackResult[];
    expect(packed!.filename).toBe(`${manifest.name}-${manifest.version}.tgz`);
    expect(packed!.integrity).toBe(published.integrity);
    const install = await run('npm', ['install', '-g', `./${packed!.filename}`], { cwd: clone, env });
    expect(install.exitCode, install.all).toBe(0);

    // npm link needs dist/ built (`npm run build`, as the README says; npm pack's prepack just did).
    const linkPrefix = freshDir('link-global');
    const link = await run('npm', ['link'], { cwd: clone, env: { ...env, npm_config_prefix: linkPrefix } });
    expect(link.exitCode, link.all).toBe(0);
    for (const prefix of [tarballPrefix, linkPrefix]) {
      const version = await run(join(prefix, 'bin', 'tfgate'), ['--version'], {
        cwd: freshDir('prerelease-user'),
        env: shellEnv(),
      });
      expect(version.stdout, prefix).toBe(manifest.version);
    }
  });
});

describe('a CDK Terrain project that depends on tfgate', SLOW, () => {
  let project: string;

  beforeAll(async () => {
    project = freshDir('consumer');
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
    );
    const versions = Object.fromEntries(
      lockClosure(['cdktn', 'constructs', '@types/node']).map((p) => [p.name, p.version]),
    );
    const install = await run(
      'npm',
      [
        'install',
        `${manifest.name}@${manifest.version}`,
        `cdktn@${versions.cdktn}`,
        `constructs@${versions.constructs}`,
        `@types/node@${versions['@types/node']}`,
      ],
      { cwd: project, env: registry.npmEnv(npmUser) },
    );
    expect(install.exitCode, install.all).toBe(0);
  }, 180_000);

  it('imports tfgate, tfgate/cdktf and tfgate/cdktn (the same module), and synth fails on a finding', async () => {
    writeFileSync(
      join(project, 'app.mjs'),
      `import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { App, TerraformResource, TerraformStack } from 'cdktn';
import { buildBundle, loadDesign, readPlan } from 'tfgate';
import * as cdktf from 'tfgate/cdktf';
import { applyConformance, ConformanceAspect } from 'tfgate/cdktn';

if (typeof readPlan !== 'function' || cdktf.ConformanceAspect !== ConformanceAspect) throw new Error('exports');
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const design = await loadDesign(process.argv[2]);
writeFileSync('bundle.tar.gz', await buildBundle({ design, signingKeyPem: keys.privateKey }));
const aspect = await ConformanceAspect.fromBundle('bundle.tar.gz', { publicKey: keys.publicKey });
const app = new App({ outdir: 'cdktf.out' });
const stack = new TerraformStack(app, 'storage');
new TerraformResource(stack, 'queue', { terraformResourceType: 'aws_sqs_queue' });
applyConformance(app, aspect);
app.synth();
`,
    );
    const design = join(REPO_ROOT, 'examples', 'cdktf', 'design.yaml');
    const result = await run(process.execPath, ['app.mjs', design], { cwd: project, env: shellEnv() });
    expect(result.exitCode).not.toBe(0);
    expect(result.all).toContain('[storage/queue] [tfgate] unsanctioned_creation (high): aws_sqs_queue');
    expect(existsSync(join(project, 'cdktf.out', 'stacks', 'storage', 'cdk.tf.json'))).toBe(false);
  });

  it('type-checks against the shipped declarations (NodeNext resolution through the exports)', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2023',
          // No DOM: a Node project's lib. opa-wasm's types (WebAssembly.*) once reached the declarations.
          lib: ['ES2023'],
          skipLibCheck: false,
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
    writeFileSync(
      join(project, 'check.ts'),
      `import { BundleEvaluator, type Design, loadDesign, readAndEvaluatePlan, TfgateError } from 'tfgate';
import { ConformanceAspect as FromCdktf } from 'tfgate/cdktf';
import { applyConformance, ConformanceAspect } from 'tfgate/cdktn';

const design: Design = await loadDesign('design.yaml');
const aspect: FromCdktf = await ConformanceAspect.fromDesign('design.yaml', { advisory: true });
export const checked: [string, typeof applyConformance, FromCdktf, typeof TfgateError] = [design.package_id, applyConformance, aspect, TfgateError];
export const evaluation: [typeof BundleEvaluator.open, typeof readAndEvaluatePlan] = [BundleEvaluator.open, readAndEvaluatePlan];
`,
    );
    const tsc = await run(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
      {
        cwd: project,
        env: shellEnv(),
      },
    );
    expect(tsc.all).toBe('');
    expect(tsc.exitCode).toBe(0);
  });
});
