// A worker thread that evaluates a large plan's batches while the main thread goes on reading the plan: the
// two cores scan and evaluate at once. Started only past PlanSession's threshold, so a small plan pays no
// start-up (measured: ~25 ms and ~13 MB RSS for the thread and its wasm instance).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's code, evaluated as CommonJS (no file to locate in dist/ or in the bundled CLI): opa-wasm on
 * the compiled module posted to it, the same entrypoint, memory grown in one step to what the main thread
 * asks for. It answers each batch in order with the policy's raw result; the main thread checks its shape.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const opaWasm = require(workerData.opaWasmPath);
const PAGE = 65536;
const done = new Int32Array(workerData.done);
let policy;
parentPort.on('message', ({ input, memoryBytes }) => {
  let answer;
  try {
    if (!policy) {
      policy = opaWasm.loadPolicySync(workerData.module, { initial: Math.ceil(memoryBytes / PAGE) });
      policy.setData(workerData.data);
    } else {
      const needed = policy.dataHeapPtr + memoryBytes;
      const have = policy.mem.buffer.byteLength;
      if (needed > have) policy.mem.grow(Math.min(65536 - have / PAGE, Math.ceil((needed - have) / PAGE)));
    }
    const resultSet = policy.evaluate(input, workerData.entrypoint);
    const first = Array.isArray(resultSet) ? resultSet[0] : undefined;
    answer = { result: first === undefined ? undefined : first.result };
  } catch (error) {
    answer = { failure: error instanceof Error ? error.message : String(error) };
  }
  parentPort.postMessage(answer);
  Atomics.add(done, 0, 1);
  Atomics.notify(done, 0);
});
`;

export type WorkerAnswer = { result: unknown } | { failure: string };

// Backpressure: the reader delivers batches synchronously, so when the worker is this many batches behind,
// the main thread waits for it (Atomics.wait) instead of queueing every batch of a huge plan in memory.
const MAX_IN_FLIGHT = 2;
// A worker that answers nothing for this long is not waited for any more (its answers still decide).
const MAX_WAIT_MS = 10_000;

/** One worker: batches in, answers out in the same order. */
export class PlanWorker {
  readonly #worker: Worker;
  readonly #waiting: Array<{ resolve: (answer: WorkerAnswer) => void }> = [];
  #broken: string | undefined;
  /** Batches the worker has answered, counted by the worker; batches sent, by this side. */
  readonly #done = new Int32Array(new SharedArrayBuffer(4));
  #sent = 0;

  constructor(module: object, data: ArrayBuffer, entrypoint: string) {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        module,
        data,
        entrypoint,
        done: this.#done.buffer,
        opaWasmPath: createRequire(import.meta.url).resolve('@open-policy-agent/opa-wasm'),
      },
    });
    // Never what keeps the process alive: a CLI exits when its work is done.
    this.#worker.unref();
    this.#worker.on('message', (answer: WorkerAnswer) => this.#waiting.shift()?.resolve(answer));
    const fail = (why: string) => {
      this.#broken ??= why;
      for (const waiter of this.#waiting.splice(0)) waiter.resolve({ failure: why });
    };
    this.#worker.on('error', (error) => fail(`the evaluation thread failed: ${error.message}`));
    this.#worker.on('exit', (code) => fail(`the evaluation thread stopped (exit code ${code})`));
  }

  /** Evaluate one serialized batch; the buffer is handed over to the worker (no copy). */
  evaluate(input: Uint8Array, memoryBytes: number): Promise<WorkerAnswer> {
    if (this.#broken !== undefined) return Promise.resolve({ failure: this.#broken });
    const answer = new Promise<WorkerAnswer>((resolve) => this.#waiting.push({ resolve }));
    const buffer = input.buffer as ArrayBuffer;
    const whole = input.byteOffset === 0 && input.byteLength === buffer.byteLength;
    const owned = whole ? buffer : (input.slice().buffer as ArrayBuffer);
    this.#worker.postMessage({ input: owned, memoryBytes }, [owned]);
    this.#sent++;
    this.#waitUntilBehindBy(MAX_IN_FLIGHT);
    return answer;
  }

  #waitUntilBehindBy(batches: number): void {
    const until = Date.now() + MAX_WAIT_MS;
    for (;;) {
      const done = Atomics.load(this.#done, 0);
      if (this.#sent - done <= batches || Date.now() >= until) return;
      Atomics.wait(this.#done, 0, done, 50);
    }
  }

  /** Stop the thread; answers still owed resolve as failures (nobody reads them after an error). */
  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
