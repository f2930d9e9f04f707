// A large plan file read and evaluated in two parts at once, on two threads: a run of its resource changes by a
// worker (evaluate-worker.ts), the rest here, each on its own instance of the policy, at the same moment, and
// the policy's outputs added up (every plan rule looks at one change at a time: conformance.rego). The split is
// a checked guess (src/plan/split-read.ts): whatever goes wrong with the worker's part, this thread reads and
// judges it itself, so the result, and any error, is the one a single read gives.
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { consumedChunks, type PlanSource } from '../plan/source.js';
import { findResourceChangeRun, readPlanAroundRun } from '../plan/split-read.js';
import type { PolicyData } from './data.js';
import type { PolicyEngine } from './engine.js';
import {
  type ReadAndEvaluateOptions,
  type ReadAndEvaluateResult,
  readAndEvaluatePlan,
  StreamEvaluator,
} from './evaluate-stream.js';
import type { RunJob, RunResult } from './evaluate-worker.js';

/** Below this a plan is read in one part: a second thread costs ~40 ms to start and load the policy. */
export const SPLIT_MIN_BYTES = 32 * 1024 * 1024;

/**
 * Where the worker's run starts, as a fraction of the file: the resource changes (read and judged, the slow
 * part) sit between planned_values and prior_state (only validated, fast), and the worker also starts a
 * thread. On bench/gen-plan's 147 MB plan, in process, medians of 3: 0.5 760 ms (the main thread waits for
 * the worker), 0.55 710, 0.6 717, 0.65 781; one part 850-970.
 */
const RUN_START_FRACTION = 0.57;

/** The worker's heap: a small young generation keeps its peak memory down (its garbage dies young). */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 512 };

export interface SplitOptions extends ReadAndEvaluateOptions {
  /** A file from this size is read in two parts (default SPLIT_MIN_BYTES). */
  splitMinBytes?: number;
}

export interface SplitResult extends ReadAndEvaluateResult {
  /** 2 when the worker read and judged its part, 1 when this thread read the whole plan. */
  parts: 1 | 2;
}

/**
 * Read the plan and evaluate it: a regular file from splitMinBytes in two parts at once when a second core is
 * there, anything else as readAndEvaluatePlan reads it.
 */
export async function readAndEvaluateSource(
  source: PlanSource,
  engine: Promise<PolicyEngine>,
  data: PolicyData | Promise<PolicyData>,
  options: SplitOptions = {},
): Promise<SplitResult> {
  const onePart = async () => ({
    ...(await readAndEvaluatePlan(consumedChunks(source), engine, data, options)),
    parts: 1 as const,
  });
  const path = source.file;
  if (path === undefined || availableParallelism() < 2) return onePart();
  const found = await stat(path).catch(() => undefined);
  if (!found?.isFile() || found.size < (options.splitMinBytes ?? SPLIT_MIN_BYTES)) return onePart();
  // Started first: it boots while the run is looked for and the policy compiles.
  let worker: Worker;
  try {
    worker = new Worker(new URL('./evaluate-worker.js', import.meta.url), { resourceLimits: WORKER_LIMITS });
  } catch {
    return onePart();
  }
  try {
    const runStart = await findResourceChangeRun(path, RUN_START_FRACTION).catch(() => undefined);
    if (runStart === undefined) return await onePart();
    return await twoParts(path, runStart, worker, engine, data, options);
  } finally {
    void worker.terminate();
  }
}

async function twoParts(
  path: string,
  runStart: number,
  worker: Worker,
  engine: Promise<PolicyEngine>,
  data: PolicyData | Promise<PolicyData>,
  options: ReadAndEvaluateOptions,
): Promise<SplitResult> {
  const clock = options.now ?? (() => new Date());
  const evaluator = new StreamEvaluator(clock);
  const batchChanges = options.batchChanges ?? 512;
  // Attached now, so that a rejected engine or data is never unhandled while the plan is read.
  const ready = Promise.all([engine, data]).then(
    ([loaded, policyData]) => {
      evaluator.start(loaded, policyData);
      return { module: loaded.module, data: policyData };
    },
    (error: unknown) => {
      evaluator.fail(error);
      return undefined;
    },
  );
  // The worker's part, once the policy and its data are there, judged at the moment this thread judges at.
  const ran = ready.then((policy): Promise<RunResult> | RunResult => {
    if (policy === undefined) return { ok: false, reason: 'no policy' };
    const job: RunJob = { path, runStart, batchChanges, ...policy, now: evaluator.judgedAt() };
    return runInWorker(worker, job);
  });
  let result: RunResult | undefined;
  try {
    const { runRead } = await readPlanAroundRun(
      path,
      runStart,
      async () => {
        result = await ran;
        return result.ok ? result.closeAt : undefined;
      },
      {
        ...(options.description === undefined ? {} : { description: options.description }),
        batchChanges,
        onChanges: (batch) => evaluator.add(batch),
        onReducedChanges: (json) => evaluator.addReduced(json),
      },
    );
    await ready;
    if (runRead && result?.ok) evaluator.absorb(result.outputs, result.retained);
    return { ...evaluator.finish(clock()), parts: runRead ? 2 : 1 };
  } catch (error) {
    evaluator.fail(error);
    throw error;
  }
}

/** The worker's answer to `job`; an answer saying why not when it fails or exits. */
function runInWorker(worker: Worker, job: RunJob): Promise<RunResult> {
  return new Promise((resolve) => {
    const failed = (reason: string) => resolve({ ok: false, reason });
    worker.once('message', (result: RunResult) => resolve(result));
    worker.once('error', (error) => failed(error.message));
    worker.once('exit', (code) => failed(`the worker exited (${code})`));
    worker.postMessage(job);
  });
}
