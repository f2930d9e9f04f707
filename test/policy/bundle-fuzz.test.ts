// Property-based fuzzing of the bundle tar reader, the verifier and the canonical JSON renderer (issue 8):
// thousands of hostile archives, mutated genuine bundles and JSON written every way JSON allows, each refused
// or accepted within bounds, never with another error, never hanging. Each target runs in its own process
// for a bounded time (TFGATE_FUZZ_TIME_MS, default 6 s); a failure prints the seed and a reproducer.
import { describe, expect, it } from 'vitest';
import { runFuzzTarget } from './fuzz/spawn.js';

describe('fuzz', () => {
  it.each([
    ['tar', 'the tar reader: hostile headers, pax records, sizes, names, gzip streams and bombs'],
    ['verify', 'the verifier: mutated signed bundles and rewritten JSON files; accepted only when unchanged'],
    ['canonical', 'the canonical JSON renderer, against the reference digest and JSON.parse'],
  ])('%s: %s', async (target) => {
    const report = await runFuzzTarget(target);
    // A run that did almost nothing proves nothing: the generators must be cheap enough for many cases.
    expect(report.numRuns).toBeGreaterThan(200);
  });
});
