// Runs one fuzz target for a bounded time, in its own process so that a hang can be killed from outside:
//   node --import ./test/helpers/ts-register.mjs test/policy/fuzz/run.ts <tar|verify|canonical|go-tar>
// Environment: FUZZ_SEED, FUZZ_PATH (replay one failure), FUZZ_TIME_MS, FUZZ_DIR (where the input being run
// is written before it runs, and the counterexample after a failure), GO_TAR (the go-tar binary).
// Prints one JSON line: the seed, the number of runs, and on failure the error and the reproducer.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { canonicalTarget, type FuzzTarget, goTarTarget, tarTarget, verifyTarget } from './targets.js';

const name = process.argv[2];
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 2 ** 31);
const timeMs = Number(process.env.FUZZ_TIME_MS ?? 8000);
const dir = process.env.FUZZ_DIR ?? '.';
const replay = process.env.FUZZ_PATH;

async function target(): Promise<FuzzTarget<unknown>> {
  switch (name) {
    case 'tar':
      return tarTarget() as FuzzTarget<unknown>;
    case 'verify':
      return (await verifyTarget()) as FuzzTarget<unknown>;
    case 'canonical':
      return canonicalTarget() as FuzzTarget<unknown>;
    case 'go-tar':
      return goTarTarget(process.env.GO_TAR ?? 'go-tar') as FuzzTarget<unknown>;
    default:
      throw new Error(`unknown fuzz target ${name}`);
  }
}

const t = await target();
const current = join(dir, `${name}.current`);
const details = await fc.check(
  fc.asyncProperty(t.arbitrary, async (input) => {
    // Written before the input runs: if it hangs, this file is the reproducer.
    writeFileSync(current, t.bytes(input));
    await t.check(input);
  }),
  {
    seed,
    ...(replay ? { path: replay, numRuns: 1 } : { numRuns: 1_000_000 }),
    plugins: [fc.interruptAfterTimeLimit(timeMs)],
  },
);
t.close?.();
const report: Record<string, unknown> = { target: name, seed: details.seed, numRuns: details.numRuns };
if (details.failed) {
  const reproducer = join(dir, `${name}.counterexample`);
  const input = (details.counterexample as unknown[] | null)?.[0];
  if (input !== undefined) writeFileSync(reproducer, t.bytes(input));
  const error = details.errorInstance;
  Object.assign(report, {
    failed: true,
    path: details.counterexamplePath,
    error:
      error instanceof Error
        ? `${error.message}${error.cause ? ` (cause: ${String(error.cause)})` : ''}`
        : String(error),
    reproducer,
  });
}
process.stdout.write(`${JSON.stringify(report)}\n`);
