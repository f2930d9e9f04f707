// Run a fuzz target (run.ts) in a child process with a deadline, and turn its report, a crash or a hang into
// a test failure that prints how to reproduce it.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** Per target; TFGATE_FUZZ_TIME_MS runs longer locally. */
export const FUZZ_TIME_MS = Number(process.env.TFGATE_FUZZ_TIME_MS ?? 6000);
/** Start-up, the last case, and shrinking a failure, on a loaded machine. */
const SLACK_MS = 40_000;

export interface FuzzReport {
  target: string;
  seed: number;
  numRuns: number;
}

export async function runFuzzTarget(target: string, env: Record<string, string> = {}): Promise<FuzzReport> {
  const seed = process.env.TFGATE_FUZZ_SEED
    ? Number(process.env.TFGATE_FUZZ_SEED)
    : Math.floor(Math.random() * 2 ** 31);
  const dir = await mkdtemp(join(tmpdir(), `tfgate-fuzz-${target}-`));
  const replay = `TFGATE_FUZZ_SEED=${seed}${process.env.TFGATE_FUZZ_PATH ? ` TFGATE_FUZZ_PATH=${process.env.TFGATE_FUZZ_PATH}` : ''}`;
  const result = await execa(
    process.execPath,
    ['--import', './test/helpers/ts-register.mjs', 'test/policy/fuzz/run.ts', target],
    {
      cwd: ROOT,
      env: {
        ...env,
        FUZZ_SEED: String(seed),
        FUZZ_TIME_MS: String(FUZZ_TIME_MS),
        FUZZ_DIR: dir,
        ...(process.env.TFGATE_FUZZ_PATH ? { FUZZ_PATH: process.env.TFGATE_FUZZ_PATH } : {}),
      },
      reject: false,
      timeout: FUZZ_TIME_MS + SLACK_MS,
    },
  );
  if (result.timedOut) {
    const current = join(dir, `${target}.current`);
    throw new Error(
      `fuzz target ${target} (seed ${seed}) did not finish: an input hangs it. That input: ${current}` +
        `${await asBase64(current)}\nRerun: ${replay} npx vitest run <this test file>`,
    );
  }
  const line = result.stdout.trim().split('\n').pop() ?? '';
  let report: FuzzReport & { failed?: boolean; error?: string; path?: string; reproducer?: string };
  try {
    report = JSON.parse(line);
  } catch {
    throw new Error(
      `fuzz target ${target} (seed ${seed}) crashed (exit ${result.exitCode}):\n${result.stderr}\n` +
        `The input it was running: ${join(dir, `${target}.current`)}\nRerun: ${replay} npx vitest run <this test file>`,
    );
  }
  if (report.failed) {
    throw new Error(
      `fuzz target ${target} failed after ${report.numRuns} runs: ${report.error}\n` +
        `Counterexample: ${report.reproducer}${await asBase64(report.reproducer ?? '')}\n` +
        `Replay it: TFGATE_FUZZ_SEED=${seed} TFGATE_FUZZ_PATH=${report.path} npx vitest run <this test file>`,
    );
  }
  await rm(dir, { recursive: true, force: true });
  return report;
}

async function asBase64(path: string): Promise<string> {
  try {
    if ((await stat(path)).size > 4096) return '';
    return ` (base64: ${(await readFile(path)).toString('base64')})`;
  } catch {
    return '';
  }
}
