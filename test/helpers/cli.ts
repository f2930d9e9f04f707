// Run the built CLI (`node dist/cli/main.js`) as a user would, and collect its exit code and output.
//
// Building: call `await buildCli()` in a beforeAll. It builds as `npm run build` does (tsc, then the bundle)
// when dist/cli/main.js is missing or older than any file under src/, so a single `npx vitest run <file>`
// tests the current source and `npm test` (which builds before vitest) does not build twice.
// TFGATE_TEST_SKIP_BUILD=1 never builds.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const CLI_MAIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to a clean environment: no TFGATE_* from the caller's shell leaks in. */
  env?: Record<string, string>;
  /** Written to the CLI's stdin, then closed. */
  stdin?: string | Buffer;
  cwd?: string;
}

let built: Promise<void> | undefined;

export function buildCli(): Promise<void> {
  built ??= (async () => {
    if (existsSync(CLI_MAIN) && (process.env.TFGATE_TEST_SKIP_BUILD === '1' || !sourceNewerThanBuild()))
      return;
    // One build across vitest's worker processes: the bundler replaces the chunks another worker's CLI loads.
    await withBuildLock(async () => {
      if (existsSync(CLI_MAIN) && !sourceNewerThanBuild()) return;
      // tsc still emits when a file elsewhere has a type error; the CLI exists or the build failed for real.
      const tsc = await execa('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT, reject: false });
      if (!existsSync(CLI_MAIN)) throw new Error(`npm run build failed:\n${tsc.stdout}\n${tsc.stderr}`);
      // Then bundled as `npm run build` does: the tests run the CLI users install, not tsc's module tree.
      const bundle = await execa('node', ['scripts/bundle-cli.mjs'], { cwd: REPO_ROOT, reject: false });
      if (bundle.exitCode !== 0) throw new Error(`bundling the CLI failed:\n${bundle.stderr}`);
    });
  })();
  return built;
}

const BUILD_LOCK = join(REPO_ROOT, 'dist', '.test-build-lock');

/** Run `build` holding a lock directory (mkdir is atomic); a lock older than 5 minutes was left by a crash. */
async function withBuildLock(build: () => Promise<void>): Promise<void> {
  mkdirSync(dirname(BUILD_LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      const age = Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await build();
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

function sourceNewerThanBuild(): boolean {
  const built = statSync(CLI_MAIN).mtimeMs;
  const src = join(REPO_ROOT, 'src');
  return readdirSync(src, { recursive: true, encoding: 'utf8' }).some(
    (name) => name.endsWith('.ts') && statSync(join(src, name)).mtimeMs > built,
  );
}

export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const cleanEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('TFGATE_') && k !== 'GITHUB_ACTIONS'),
  );
  const result = await execa('node', [CLI_MAIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...cleanEnv, NO_COLOR: '1', ...options.env },
    extendEnv: false,
    input: options.stdin ?? '',
    reject: false,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}
