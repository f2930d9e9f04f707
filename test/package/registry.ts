// A real npm registry on loopback for the package tests: Verdaccio (pinned; scripts/setup-tools.sh puts it
// in .tools/bin), with its storage in a temporary directory and no uplink, so it serves only what the
// tests publish and nothing it is asked for leaves the machine. tfgate's dependencies are published to it
// from the npm cache (`npm pack --offline`), exactly the versions package-lock.json names, each checked
// against the lock's integrity.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { list } from 'tar';
import { REPO_ROOT } from '../helpers/cli.js';

export interface Registry {
  /** With a trailing slash, as npm writes registry URLs. */
  url: string;
  /** The publishing user's token (`npm adduser` gives one the same way). */
  token: string;
  /** A user's shell with npm (and npx) pointed at this registry only, with its own cache under `home`. */
  npmEnv(home: string, extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

interface LockEntry {
  version?: string;
  integrity?: string;
  inBundle?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const VERDACCIO = join(REPO_ROOT, '.tools', 'bin', 'verdaccio');

/**
 * This process's environment without npm's (`npm test` exports npm_config_* and npm_* to its scripts,
 * which would steer the npm commands under test) and without TFGATE_*: a user's shell.
 */
export function shellEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(key) && !key.startsWith('TFGATE_')) env[key] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** Start Verdaccio with its storage under `dir`; resolves once it answers /-/ping and a user exists. */
export async function startVerdaccio(dir: string): Promise<Registry> {
  if (!existsSync(VERDACCIO)) {
    throw new Error(`${VERDACCIO} is missing: run \`bash scripts/setup-tools.sh verdaccio\` (.ci/run does)`);
  }
  if (Number(process.versions.node.split('.')[0]) < 22) {
    throw new Error(`Verdaccio needs Node >= 22; this is ${process.version} (.ci/run uses .tools/node-*)`);
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(dir, 'verdaccio.yaml');
  // No `uplinks`, and no package rule with `proxy`: a package not published here is a 404. No audit
  // middleware (it forwards to the public registry) and no web UI.
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
      '    max_users: 1',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      'web:',
      '  enable: false',
      'max_body_size: 64mb',
      'log: { type: stdout, format: json, level: warn }',
      '',
    ].join('\n'),
  );
  const log = createWriteStream(join(dir, 'verdaccio.log'));
  const child: ChildProcess = spawn(
    process.execPath,
    [realpathSync(VERDACCIO), '--config', config, '--listen', `127.0.0.1:${port}`],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitForPing(url, child, dir);
    const token = await createUser(url);
    return {
      url,
      token,
      stop,
      npmEnv: (home, extra = {}) => {
        const npmrc = join(home, '.npmrc');
        writeFileSync(npmrc, `//127.0.0.1:${port}/:_authToken=${token}\n`);
        // NPM_CONFIG_REGISTRY as the examples tell a CI system to set it (npm reads npm_config_* in any case).
        return shellEnv({
          NPM_CONFIG_REGISTRY: url,
          npm_config_userconfig: npmrc,
          npm_config_cache: join(home, '.npm'),
          npm_config_audit: 'false',
          npm_config_fund: 'false',
          npm_config_update_notifier: 'false',
          HOME: home,
          ...extra,
        });
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitForPing(url: string, child: ChildProcess, dir: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}-/ping`)).ok) return;
    } catch {}
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`Verdaccio did not start:\n${readFileSync(join(dir, 'verdaccio.log'), 'utf8')}`);
}

/** `npm adduser`'s request: the one user the htpasswd config allows; its token publishes. */
async function createUser(url: string): Promise<string> {
  const name = 'tfgate-test';
  const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: 'loopback-only', type: 'user', roles: [] }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || !body.token) throw new Error(`Verdaccio adduser: ${response.status}`);
  return body.token;
}

/**
 * The packages `roots` need, as package-lock.json resolves them (node_modules paths, nested ones
 * included): Node's lookup from each dependent up through its parents' node_modules.
 */
export function lockClosure(
  roots: readonly string[],
): Array<{ name: string; version: string; integrity: string }> {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const packages = lock.packages;
  const seen = new Set<string>();
  const resolve = (from: string, name: string): string | undefined => {
    for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (packages[candidate]) return candidate;
      if (!base) return undefined;
    }
  };
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const entry = packages[path]!;
    const deps = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
    for (const name of Object.keys(deps)) {
      const found = resolve(path, name);
      if (found) visit(found);
      else if (!entry.optionalDependencies?.[name] && !entry.peerDependencies?.[name])
        throw new Error(`package-lock.json: ${path} needs ${name}, which the lock does not have`);
    }
  };
  for (const root of roots) {
    const found = resolve('', root);
    if (!found) throw new Error(`package-lock.json has no ${root}`);
    visit(found);
  }
  // A bundled dependency comes inside its dependent's tarball, not from the registry.
  return [...seen]
    .filter((path) => !packages[path]!.inBundle)
    .map((path) => {
      const entry = packages[path]!;
      return {
        name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
        version: entry.version!,
        integrity: entry.integrity!,
      };
    });
}

/**
 * Publish these exact tarballs from the npm cache (no network: `npm pack --offline`, run with the
 * user's own npm configuration, where `npm ci` put them). Each is checked against the lock's integrity.
 * The registry's publish request (what `npm publish <tarball>` sends) is made here directly: one npm
 * process per dependency would cost a minute, and a dependency's own `publishConfig` could point npm
 * at another registry.
 */
export async function publishFromCache(
  registry: Registry,
  workDir: string,
  packages: ReadonlyArray<{ name: string; version: string; integrity: string }>,
): Promise<void> {
  const destination = join(workDir, 'tarballs');
  mkdirSync(destination, { recursive: true });
  const { stdout } = await execa(
    'npm',
    [
      'pack',
      '--offline',
      '--json',
      '--ignore-scripts',
      '--pack-destination',
      destination,
      ...packages.map((p) => `${p.name}@${p.version}`),
    ],
    { cwd: workDir, env: shellEnv(), extendEnv: false },
  ).catch((error: Error) => {
    throw new Error(
      `npm pack --offline failed (it reads the npm cache that \`npm ci\` fills: run that first)\n${error.message}`,
    );
  });
  const packed = JSON.parse(stdout) as Array<{ name: string; version: string; filename: string }>;
  // Oldest first, so that `latest` ends on the newest version of a name published twice.
  packed.sort((a, b) => a.name.localeCompare(b.name) || compareVersions(a.version, b.version));
  for (const { name, version, filename } of packed) {
    const tarball = readFileSync(join(destination, filename));
    const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    const expected = packages.find((p) => p.name === name && p.version === version)!.integrity;
    if (integrity !== expected)
      throw new Error(`${name}@${version}: ${integrity} is not the lock's ${expected}`);
    const manifest = await tarballManifest(join(destination, filename));
    const file = `${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
    const body = {
      _id: name,
      name,
      'dist-tags': { latest: version },
      versions: {
        [version]: {
          ...manifest,
          _id: `${name}@${version}`,
          dist: {
            integrity,
            shasum: createHash('sha1').update(tarball).digest('hex'),
            tarball: `${registry.url}${name}/-/${file}`,
          },
        },
      },
      _attachments: {
        [`${name}-${version}.tgz`]: {
          content_type: 'application/octet-stream',
          data: tarball.toString('base64'),
          length: tarball.length,
        },
      },
    };
    const response = await fetch(`${registry.url}${name.replace('/', '%2f')}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${registry.token}` },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`publish ${name}@${version}: ${response.status} ${await response.text()}`);
  }
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(/[.+-]/).map((part) => Number(part) || 0));
  for (let i = 0; i < Math.max(x!.length, y!.length); i++) {
    const difference = (x![i] ?? 0) - (y![i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The package.json inside a package tarball (its top folder is usually, not always, `package/`). */
async function tarballManifest(file: string): Promise<Record<string, unknown>> {
  let text = '';
  await list({
    file,
    filter: (path) => /^[^/]+\/package\.json$/.test(path),
    onReadEntry: (entry) => {
      entry.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
    },
  });
  return JSON.parse(text) as Record<string, unknown>;
}
