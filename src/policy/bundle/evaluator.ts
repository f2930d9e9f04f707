// The bundle route: a verified bundle's policy.wasm and data, evaluated in process, with no service call.
import { type FileHandle, open } from 'node:fs/promises';
import type { PlanEvaluator } from '../../commands/evaluator.js';
import { BundleVerificationError } from '../../errors/index.js';
import type { EvaluationResult, Severity } from '../../model/index.js';
import { readPlan } from '../../plan/index.js';
import type { PlanSource } from '../../plan/source.js';
import { PolicyEngine, toEvaluationResult } from '../engine.js';
import { DEFAULT_TAR_LIMITS } from './tar.js';
import {
  UNSIGNED_BUNDLE_WARNING,
  type VerifiedBundle,
  type VerifyBundleOptions,
  verifyBundle,
} from './verify.js';

export interface OpenBundleOptions extends Omit<VerifyBundleOptions, 'publicKeyPem'> {
  /** Path of the PEM public key. */
  publicKeyPath?: string;
  /** Where the unsigned-bundle warning goes; it is written every time an unsigned bundle is opened. */
  warn?: (message: string) => void;
}

export class BundleEvaluator implements PlanEvaluator {
  readonly description: string;
  readonly bundle: VerifiedBundle;
  #engine: Promise<PolicyEngine> | undefined;

  constructor(bundle: VerifiedBundle, description: string) {
    this.bundle = bundle;
    this.description = description;
  }

  /** Read and verify the bundle at `path`; nothing in it is used before verification passes. */
  static async open(path: string, options: OpenBundleOptions = {}): Promise<BundleEvaluator> {
    const { publicKeyPath, warn = (m) => process.stderr.write(`${m}\n`), ...verifyOptions } = options;
    const [bytes, publicKeyPem] = await Promise.all([
      readInput(path, 'bundle', verifyOptions.limits?.maxCompressedBytes),
      publicKeyPath === undefined ? undefined : readInput(publicKeyPath, 'public key'),
    ]);
    const bundle = await verifyBundle(bytes, { ...verifyOptions, publicKeyPem });
    if (!bundle.signed) warn(UNSIGNED_BUNDLE_WARNING);
    const evaluator = new BundleEvaluator(
      bundle,
      `bundle ${path} (package ${bundle.packageId}, revision ${bundle.revision})`,
    );
    // Compile the policy now, off the critical path: `tfgate apply` opens the evaluator while terraform plans.
    evaluator.#engine = PolicyEngine.load(bundle.wasm);
    evaluator.#engine.catch(() => {}); // reported by evaluate(), which awaits it
    return evaluator;
  }

  async evaluate(source: PlanSource, minSeverity: Severity): Promise<EvaluationResult> {
    this.#engine ??= PolicyEngine.load(this.bundle.wasm);
    const [plan, engine] = await Promise.all([
      readPlan(source.open(), { description: source.description }),
      this.#engine,
    ]);
    return toEvaluationResult(
      this.bundle.packageId,
      minSeverity,
      engine.evaluatePlan(this.bundle.data, plan),
    );
  }
}

/** A PEM public key is under 1 KB even for RSA-4096; a megabyte is not a key. */
const MAX_PUBLIC_KEY_BYTES = 1024 * 1024;

/**
 * Read the bundle or key, at most its limit (the bundle's packed limit), so that a huge file, a device or a
 * pipe cannot exhaust memory before verification starts. One that cannot be read cannot be verified, so
 * there is no decision (exit 4).
 */
export async function readInput(
  path: string,
  what: 'bundle' | 'public key',
  maxBytes = what === 'bundle' ? DEFAULT_TAR_LIMITS.maxCompressedBytes : MAX_PUBLIC_KEY_BYTES,
): Promise<Buffer> {
  const code = what === 'bundle' ? 'bundle_unreadable' : 'public_key_unreadable';
  let file: FileHandle | undefined;
  try {
    file = await open(path, 'r');
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
      const { bytesRead } = await file.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) {
        throw new BundleVerificationError(
          what === 'bundle' ? 'bundle_too_large' : 'public_key_too_large',
          `the ${what} ${path} is larger than ${maxBytes} bytes, the most tfgate reads`,
          { hint: `pass the ${what === 'bundle' ? 'bundle.tar.gz' : 'PEM public key'} itself` },
        );
      }
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof BundleVerificationError) throw error;
    throw new BundleVerificationError(code, `cannot read the ${what} ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    await file?.close();
  }
}
