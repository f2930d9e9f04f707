// The conformance policy (policy/tfgate/*.rego), compiled to policy.wasm and evaluated in process.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { InvalidPlanError, NoDecisionError, UsageError } from '../errors/index.js';
import {
  type DetectedDrift,
  decide,
  type EvaluationResult,
  type ObservedStateInput,
  type PlanInput,
  SEVERITIES,
  type Severity,
} from '../model/index.js';
import { driftFindingFields } from '../schemas/findings.js';
import * as z from '../schemas/zod.js';
import type { PolicyData } from './data.js';
import { findingId } from './finding-id.js';
import {
  byAddressThenRule,
  describe,
  evaluateEntrypoint,
  evaluationFailed,
  IdleInstances,
  openPolicy,
  type PlanEvaluation,
  PlanSession,
} from './plan-session.js';

export { PLAN_ENTRYPOINT, type PlanEvaluation } from './plan-session.js';

// The tsconfig has no DOM lib and @types/node 20 declares no WebAssembly global: type what we use.
type WasmModule = { readonly __brand: 'WebAssembly.Module' };
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: {
      Module: new (bytes: Uint8Array) => WasmModule;
      compile(bytes: Uint8Array): Promise<WasmModule>;
    };
  }
).WebAssembly;

/** The policy's entrypoints, in policy.wasm and in a bundle's manifest. */
export const DRIFT_ENTRYPOINT = 'tfgate/conformance/drift';

/** The policy.wasm that ships with tfgate: policy/policy.wasm at the package root (from src/ or dist/). */
export const SHIPPED_WASM_URL = new URL('../../policy/policy.wasm', import.meta.url);

// Measured on 100k changes: chunks of a few thousand changes take about half the CPU of one input.
const PLAN_CHUNK_CHANGES = 4096;

// Compiled modules, once per process: keyed by the SHA-256 of the wasm bytes ('' for the shipped one).
const moduleCache = new Map<string, WasmModule>();

export interface PolicyEngineOptions {
  /**
   * Keep the instances of finished plan evaluations for the next plan with the same data object (IdleInstances):
   * for one command checking many roots against one bundle. Off by default: a long-running service would
   * hold their memory for every design revision it has seen.
   */
  keepIdleInstances?: boolean;
}

/** The compiled policy.wasm, loaded once per process; each evaluation gets memory sized to its input. */
export class PolicyEngine {
  // Keyed by the data object (one bundle's data across its roots), so they go when the data does.
  readonly #idle: WeakMap<PolicyData, IdleInstances> | undefined;

  private constructor(
    private readonly module: WasmModule,
    options: PolicyEngineOptions = {},
  ) {
    this.#idle = options.keepIdleInstances ? new WeakMap() : undefined;
  }

  /** Load the policy.wasm that ships with tfgate (or the given bytes, e.g. from a verified bundle). */
  static async load(wasm?: Uint8Array, options: PolicyEngineOptions = {}): Promise<PolicyEngine> {
    const key = cacheKey(wasm);
    let module = moduleCache.get(key);
    if (!module) {
      const bytes = wasm ?? (await readShipped(() => readFile(SHIPPED_WASM_URL)));
      module = await compile(() => wasmApi.compile(bytes));
      moduleCache.set(key, module);
    }
    return new PolicyEngine(module, options);
  }

  /** Synchronous load, for CDKTF's synchronous visit/validate. */
  static loadSync(wasm?: Uint8Array, options: PolicyEngineOptions = {}): PolicyEngine {
    const key = cacheKey(wasm);
    let module = moduleCache.get(key);
    if (!module) {
      const bytes = wasm ?? readShippedSync();
      try {
        module = new wasmApi.Module(bytes);
      } catch (error) {
        throw invalidWasm(error);
      }
      moduleCache.set(key, module);
    }
    return new PolicyEngine(module, options);
  }

  /**
   * Evaluate a (reduced) plan. Throws InvalidPlanError when the policy reports the plan unreadable.
   * Every plan rule and count looks at one change at a time (see conformance.rego), so resource_changes
   * goes in chunks and the counts add up: bounded wasm memory, and linear time in opa-wasm, whose
   * allocator slows down on one huge input.
   */
  evaluatePlan(
    data: PolicyData,
    plan: PlanInput,
    options: { chunkSize?: number; now?: Date } = {},
  ): PlanEvaluation {
    // A library caller's own object: each change is checked by the policy, the list itself here.
    const changes = (plan as Partial<PlanInput> | null | undefined)?.resource_changes;
    if (!Array.isArray(changes)) {
      throw new InvalidPlanError('the plan object has no resource_changes array, so it cannot be evaluated', {
        hint: 'pass what readPlan resolves to (resource_changes is [] when nothing changes), or read the plan with readAndEvaluatePlan',
      });
    }
    const session = this.openPlan(data, options.now ?? new Date());
    const size = options.chunkSize ?? PLAN_CHUNK_CHANGES;
    for (let start = 0; start < changes.length; start += size)
      session.add(changes.slice(start, start + size));
    return session.finish();
  }

  /**
   * A plan evaluation fed batch by batch (src/policy/evaluate-stream.ts feeds it as the plan is read).
   * The evaluation time goes in as input.now: the policy never reads a clock (see conformance.rego).
   */
  openPlan(data: PolicyData, now: Date): PlanSession {
    return new PlanSession(this.module, data, now.toISOString(), this.#idleFor(data));
  }

  /**
   * Open an instance for `data` before the first plan arrives and keep it idle for that plan: `tfgate apply`
   * does it while terraform plans, so after `show` the first batch only evaluates (instantiating the policy
   * and loading the design's data took ~3 ms there). Only with keepIdleInstances, and only when none is idle.
   */
  prepare(data: PolicyData): void {
    const idle = this.#idleFor(data);
    if (idle?.isEmpty) idle.keep(openPolicy(this.module, data, 0));
  }

  #idleFor(data: PolicyData): IdleInstances | undefined {
    let idle = this.#idle?.get(data);
    if (this.#idle && !idle) {
      idle = new IdleInstances();
      this.#idle.set(data, idle);
    }
    return idle;
  }

  /** Evaluate observed state against the design: the drift rules. */
  evaluateDrift(data: PolicyData, state: ObservedStateInput): DetectedDrift[] {
    const output = driftOutputSchema.parse(this.run(DRIFT_ENTRYPOINT, data, serializeState(state)));
    if (output.errors.length > 0) {
      throw new InvalidPlanError(`the observed state cannot be evaluated: ${output.errors.join('; ')}`, {
        hint: 'pass the output of `terraform show -json` on the state',
      });
    }
    return output.findings
      .map((finding) => {
        const drift: DetectedDrift = {
          id: findingId(data.package_id, finding.rule, finding.address),
          rule: finding.rule,
          severity: finding.severity,
          address: finding.address,
          message: finding.message,
        };
        if (finding.type !== undefined) drift.type = finding.type;
        if (finding.kind !== undefined) drift.kind = finding.kind;
        if (finding.capability !== undefined) drift.capability = finding.capability;
        return drift;
      })
      .sort(byAddressThenRule);
  }

  /** Evaluate one input on a fresh instance. */
  private run(entrypoint: string, data: PolicyData, input: Uint8Array): unknown {
    try {
      return evaluateEntrypoint(openPolicy(this.module, data, input.byteLength), input, entrypoint);
    } catch (error) {
      throw evaluationFailed(error);
    }
  }
}

/** The contract's evaluation response: findings and counts with the decision for `minSeverity`. */
/**
 * A threshold a library caller gave as it is (plain JavaScript has no types to stop "CRITICAL"): one of the
 * four severities, else a usage error, before any plan byte is read. Judged against an unknown threshold,
 * every finding would block, and the result would carry a min_severity outside the contract.
 */
export function requireSeverity(minSeverity: unknown): asserts minSeverity is Severity {
  if (typeof minSeverity === 'string' && (SEVERITIES as readonly string[]).includes(minSeverity)) return;
  throw new UsageError(
    'invalid_option',
    `min severity ${JSON.stringify(minSeverity) ?? String(minSeverity)} is not one of: ${SEVERITIES.join(', ')}`,
    { hint: 'give the threshold in lower case, as the CLI takes it (--min-severity high)' },
  );
}

export function toEvaluationResult(
  packageId: string,
  minSeverity: Severity,
  evaluation: PlanEvaluation,
): EvaluationResult {
  requireSeverity(minSeverity);
  return {
    package_id: packageId,
    decision: decide(evaluation.findings, minSeverity),
    min_severity: minSeverity,
    findings: evaluation.findings,
    counts: evaluation.counts,
    ...(evaluation.expired.length > 0 ? { expired_acknowledgements: evaluation.expired } : {}),
  };
}

/** Observed state as the drift entrypoint's input: address, mode and type of each resource. */
function serializeState(state: ObservedStateInput): Uint8Array {
  const resources = state.resources.map(({ address, mode, type }) => ({ address, mode, type }));
  return new TextEncoder().encode(JSON.stringify({ resources }));
}

// The policy's output is a boundary too (a bundle may carry its own wasm): check its shape, with the
// contract's schemas less what tfgate adds (the finding id).
const driftOutputSchema = z.object({
  findings: z.array(
    z.pick(driftFindingFields, {
      rule: true,
      severity: true,
      address: true,
      type: true,
      kind: true,
      capability: true,
      message: true,
    }),
  ),
  errors: z.array(z.string()),
});

function cacheKey(wasm: Uint8Array | undefined): string {
  return wasm === undefined ? '' : createHash('sha256').update(wasm).digest('hex');
}

async function readShipped(read: () => Promise<Uint8Array>): Promise<Uint8Array> {
  try {
    return await read();
  } catch (error) {
    throw missingWasm(error);
  }
}

function readShippedSync(): Uint8Array {
  try {
    return readFileSync(SHIPPED_WASM_URL);
  } catch (error) {
    throw missingWasm(error);
  }
}

async function compile(build: () => Promise<WasmModule>): Promise<WasmModule> {
  try {
    return await build();
  } catch (error) {
    throw invalidWasm(error);
  }
}

function missingWasm(error: unknown): NoDecisionError {
  return new NoDecisionError(
    'policy_wasm_missing',
    `cannot read the policy at ${SHIPPED_WASM_URL.pathname}`,
    {
      cause: error,
      hint: 'the tfgate installation is incomplete; reinstall it, or run scripts/build-policy.sh in a clone',
    },
  );
}

function invalidWasm(error: unknown): NoDecisionError {
  return new NoDecisionError(
    'policy_wasm_invalid',
    `the policy is not valid WebAssembly: ${describe(error)}`,
    {
      cause: error,
    },
  );
}
