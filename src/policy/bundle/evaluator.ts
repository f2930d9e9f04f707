// The bundle route: a verified bundle's policy.wasm and data, evaluated in process, with no service call.
import type { PlanEvaluator } from '../../model/evaluator.js';
import type { EvaluationResult, Severity } from '../../model/index.js';
import { consumedChunks, type PlanSource } from '../../plan/source.js';
import { PolicyEngine, requireSeverity, toEvaluationResult } from '../engine.js';
import { readAndEvaluatePlan } from '../evaluate-stream.js';
import { readVerifiedBundle } from './read.js';
import type { VerifiedBundle, VerifyBundleOptions } from './verify.js';

// An evaluator serves one command (every root of a check on this bundle): its instances are reused.
const ENGINE_OPTIONS = { keepIdleInstances: true };

export interface OpenBundleOptions extends Omit<VerifyBundleOptions, 'publicKeyPem'> {
  /** Path of the PEM public key. */
  publicKeyPath?: string;
  /** Where the unsigned-bundle warning goes; it is written every time an unsigned bundle is opened. */
  warn?: (message: string) => void;
  /** The evaluation time the policy judges acknowledgement expiry with (input.now); the clock by default. */
  now?: () => Date;
}

export class BundleEvaluator implements PlanEvaluator {
  readonly description: string;
  readonly bundle: VerifiedBundle;
  #engine: Promise<PolicyEngine> | undefined;
  readonly #now: () => Date;

  constructor(bundle: VerifiedBundle, description: string, now: () => Date = () => new Date()) {
    this.bundle = bundle;
    this.description = description;
    this.#now = now;
  }

  /** Read and verify the bundle at `path`; nothing in it is used before verification passes. */
  static async open(path: string, options: OpenBundleOptions = {}): Promise<BundleEvaluator> {
    const { publicKeyPath, now, warn = (m) => process.stderr.write(`${m}\n`), ...verifyOptions } = options;
    const bundle = await readVerifiedBundle(path, {
      ...verifyOptions,
      ...(publicKeyPath === undefined ? {} : { publicKey: { path: publicKeyPath } }),
      warn,
    });
    const evaluator = new BundleEvaluator(
      bundle,
      `bundle ${path} (package ${bundle.packageId}, revision ${bundle.revision})`,
      now,
    );
    // Compile the policy and open an instance with the design's data now, off the critical path: `tfgate
    // apply` opens the evaluator while terraform plans.
    evaluator.#engine = PolicyEngine.load(bundle.wasm, ENGINE_OPTIONS).then((engine) => {
      engine.prepare(bundle.data);
      return engine;
    });
    evaluator.#engine.catch(() => {}); // reported by evaluate(), which awaits it
    return evaluator;
  }

  async evaluate(source: PlanSource, minSeverity: Severity): Promise<EvaluationResult> {
    requireSeverity(minSeverity);
    this.#engine ??= PolicyEngine.load(this.bundle.wasm, ENGINE_OPTIONS);
    // Evaluated as it is read; the time is read once the plan is, as the service does: the decision's moment.
    const { evaluation } = await readAndEvaluatePlan(consumedChunks(source), this.#engine, this.bundle.data, {
      description: source.description,
      now: this.#now,
    });
    return toEvaluationResult(this.bundle.packageId, minSeverity, evaluation);
  }
}
