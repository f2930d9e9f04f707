// The second thread of a plan read in two parts (evaluate-split.ts): it reads the run of resource changes it is
// given (src/plan/split-read.ts) and evaluates them, batch by batch, on its own instance of the same policy,
// with the same data and at the same moment as the main thread; then hands the policy's outputs back.
import { parentPort } from 'node:worker_threads';
import type { ResourceChange } from '../model/index.js';
import { readResourceChangeRun } from '../plan/split-read.js';
import type { PolicyData } from './data.js';
import { watchedAddresses } from './evaluate-stream.js';
import { evaluationFailed, type PlanOutput, PlanSession } from './plan-session.js';

/** What the main thread asks. */
export interface RunJob {
  path: string;
  runStart: number;
  batchChanges: number;
  /** The compiled policy.wasm (a WebAssembly.Module, shared, not copied). */
  module: object;
  data: PolicyData;
  /** The moment the main thread judges at (canonical ISO 8601). */
  now: string;
}

/** What it answers: the run read and judged, or why not (the main thread then reads the run itself). */
export type RunResult =
  | { ok: true; closeAt: number; outputs: PlanOutput[]; retained: ResourceChange[] }
  | { ok: false; reason: string };

async function evaluateRun(job: RunJob): Promise<RunResult> {
  const session = new PlanSession(job.module, job.data, job.now);
  const watched = watchedAddresses(job.data, job.now);
  const retained: ResourceChange[] = [];
  try {
    const closeAt = await readResourceChangeRun(
      job.path,
      job.runStart,
      (batch) => {
        if (watched.size > 0)
          for (const change of batch) if (watched.has(change.address)) retained.push(change);
        session.add(batch);
      },
      job.batchChanges,
    );
    return { ok: true, closeAt, outputs: [...session.outputs], retained };
  } catch (error) {
    return { ok: false, reason: evaluationFailed(error).message };
  }
}

parentPort?.once('message', (job: RunJob) => {
  void evaluateRun(job).then((result) => parentPort?.postMessage(result));
});
