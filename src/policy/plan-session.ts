// One plan evaluation on one opa-wasm instance: resource changes go in batch by batch (as the plan reader
// delivers them, or a held plan in chunks), only the policy's findings, counts and expired acknowledgements
// are kept, and finish() turns them into the PlanEvaluation every route reports.
import { createRequire } from 'node:module';
import { InvalidPlanError, NoDecisionError, TfgateError } from '../errors/index.js';
import {
  COUNT_KEYS,
  type EvalFinding,
  type EvaluationCounts,
  type ExpiredAcknowledgement,
  emptyCounts,
  type ResourceChange,
} from '../model/index.js';
import { acknowledgementSchema, evalFindingFields, evaluationCountsSchema } from '../schemas/findings.js';
import * as z from '../schemas/zod.js';
import { POLICY_DATA_ROOT, type PolicyData } from './data.js';
import { findingId } from './finding-id.js';

/**
 * What tfgate uses of opa-wasm's loaded policy. Declared here, not imported: opa-wasm's own types name the DOM's
 * WebAssembly namespace, which a library user's tsconfig (lib ES2023) does not have, and they reached our .d.ts.
 */
interface LoadedPolicy {
  evaluate(input: ArrayBuffer, entrypoint: string): unknown;
  setData(data: ArrayBuffer): void;
  mem: { buffer: ArrayBuffer; grow(pages: number): number };
}

// opa-wasm's ESM entry exports only loadPolicy; loadPolicySync lives on its CommonJS module.
const opaWasm = createRequire(import.meta.url)('@open-policy-agent/opa-wasm') as {
  loadPolicySync(module: object, memory: { initial: number }): LoadedPolicy;
};

export const PLAN_ENTRYPOINT = 'tfgate/conformance/plan';

/** What the plan entrypoint yields: findings and counts, before a threshold turns them into a decision. */
export interface PlanEvaluation {
  findings: EvalFinding[];
  counts: EvaluationCounts;
  /** Plan acknowledgements of these findings that had expired at the evaluation time. */
  expired: ExpiredAcknowledgement[];
}

const WASM_PAGE = 64 * 1024;
// Measured (bench/out, 1k to 16k changes a batch): opa-wasm's heap peaks at about 14.5 times the batch's
// JSON; 16 plus a base leaves room, and the memory is grown in one step before a larger batch, never by
// opa-wasm's allocator a page at a time. Untouched pages cost no RSS.
const MEMORY_PER_INPUT_BYTE = 16;
const MEMORY_BASE_BYTES = 4 * 1024 * 1024;
const MEMORY_MAX_PAGES = 65_536; // 4 GiB, wasm32's ceiling

/** The policy's raw plan output for one batch, shape-checked. */
type PlanOutput = z.infer<typeof planOutputSchema>;

// An idle instance kept for the next session holds at most this much memory (a 1,000-change plan's is ~8 MiB).
const IDLE_INSTANCE_MAX_BYTES = 64 * 1024 * 1024;
const IDLE_INSTANCES_MAX = 4;

/**
 * Instances of one module with one data, left by finished sessions for the next: many roots checked against
 * one bundle (at most a few at once) then instantiate, set the data and fault in fresh memory a few times
 * instead of once per root (measured: 50 roots, ~50 ms of CPU). opa-wasm's evaluate writes each input at
 * the data's end and starts the heap after it, so nothing of one evaluation is seen by the next, as between
 * the batches of one session. An instance whose evaluation failed is never kept.
 */
export class IdleInstances {
  readonly #idle: LoadedPolicy[] = [];

  get isEmpty(): boolean {
    return this.#idle.length === 0;
  }

  take(): LoadedPolicy | undefined {
    return this.#idle.pop();
  }

  keep(policy: LoadedPolicy): void {
    if (this.#idle.length < IDLE_INSTANCES_MAX && policy.mem.buffer.byteLength <= IDLE_INSTANCE_MAX_BYTES) {
      this.#idle.push(policy);
    }
  }
}

export class PlanSession {
  #policy: LoadedPolicy | undefined;
  #failed = false;
  readonly #outputs: PlanOutput[] = [];
  readonly #encoder = new TextEncoder();
  readonly #prefix: string;

  constructor(
    private readonly module: object,
    private readonly data: PolicyData,
    /** The evaluation time as the policy's input.now (canonical ISO 8601 in UTC). */
    readonly now: string,
    /** Where an instance is taken from and left for the next session (of this module and this data). */
    private readonly idle?: IdleInstances,
  ) {
    this.#prefix = `{"now":${JSON.stringify(now)},"resource_changes":`;
  }

  /** Evaluate one batch of changes in document order; keeps only the policy's output. */
  add(changes: readonly ResourceChange[]): void {
    this.#outputs.push(
      this.#evaluate(serializeChanges(changes, this.#prefix, this.#encoder), changes.length),
    );
  }

  /**
   * Evaluate changes already in the policy's input form, as serializeChanges writes them: `,{...}` each (the
   * plan reader's reduced changes, ReadPlanOptions.onReducedChanges).
   */
  addReduced(json: Uint8Array, count: number): void {
    this.#outputs.push(this.#evaluate(reducedInput(json, this.#prefix, this.#encoder), count));
  }

  /** Findings sorted by address then rule, counts added up; InvalidPlanError when the policy reports errors. */
  finish(): PlanEvaluation {
    // A batch that failed is missing from the outputs: what is left is no decision.
    if (this.#failed) {
      throw new NoDecisionError('policy_evaluation_failed', 'a batch of this plan could not be evaluated', {
        hint: 'the error of that batch says why; nothing was applied (fail closed)',
      });
    }
    // A plan with no change is still evaluated once: the policy may report errors about its data.
    if (this.#outputs.length === 0) this.add([]);
    const evaluation = combineOutputs(this.data.package_id, this.#outputs);
    if (this.#policy) this.idle?.keep(this.#policy);
    this.#policy = undefined;
    return evaluation;
  }

  #evaluate(input: Uint8Array, changes: number): PlanOutput {
    try {
      const output = planOutputSchema.parse(
        evaluateEntrypoint(this.#open(input.byteLength), input, PLAN_ENTRYPOINT),
      );
      // opa-wasm reads input it cannot parse as no input at all: zero changes, no findings, a pass. Never
      // expected (the input is JSON.stringify's or the reader's), but a pass must not rest on it.
      if (output.counts.resource_changes !== changes) {
        throw new NoDecisionError(
          'policy_input_mismatch',
          `the policy counted ${output.counts.resource_changes} resource changes in a batch of ${changes}`,
          { hint: 'this is a tfgate defect: report it with the plan (nothing was applied)' },
        );
      }
      return output;
    } catch (error) {
      this.#failed = true;
      throw evaluationFailed(error);
    }
  }

  /** The instance, opened (or taken idle) on first use, with memory for an input of `inputBytes` grown in one step. */
  #open(inputBytes: number): LoadedPolicy {
    let policy = this.#policy;
    if (!policy) {
      policy = this.idle?.take();
      if (!policy) {
        policy = openPolicy(this.module, this.data, inputBytes);
        this.#policy = policy;
        return policy;
      }
      this.#policy = policy;
    }
    const used = (policy as unknown as { dataHeapPtr: number }).dataHeapPtr;
    const needed = used + MEMORY_BASE_BYTES + MEMORY_PER_INPUT_BYTE * inputBytes;
    const have = policy.mem.buffer.byteLength;
    if (needed > have) {
      const pages = Math.min(MEMORY_MAX_PAGES - have / WASM_PAGE, Math.ceil((needed - have) / WASM_PAGE));
      if (pages > 0) policy.mem.grow(pages);
    }
    return policy;
  }
}

/**
 * A fresh instance of the policy with `data` set, its memory sized up front for an input of `inputBytes`
 * (opa-wasm would grow it a page at a time, which is slow).
 */
export function openPolicy(module: object, data: PolicyData, inputBytes: number): LoadedPolicy {
  const dataBytes = new TextEncoder().encode(JSON.stringify({ [POLICY_DATA_ROOT]: data }));
  const needed = MEMORY_BASE_BYTES + MEMORY_PER_INPUT_BYTE * (dataBytes.byteLength + inputBytes);
  const pages = Math.min(MEMORY_MAX_PAGES, Math.ceil(needed / WASM_PAGE));
  const policy = opaWasm.loadPolicySync(module, { initial: pages });
  policy.setData(exactBuffer(dataBytes));
  return policy;
}

/** The entrypoint's result for `input`; a policy that defines none gives no decision. */
export function evaluateEntrypoint(
  policy: Pick<LoadedPolicy, 'evaluate'>,
  input: Uint8Array,
  entrypoint: string,
): unknown {
  const resultSet: unknown = policy.evaluate(exactBuffer(input), entrypoint);
  const first = Array.isArray(resultSet) ? (resultSet[0] as { result?: unknown } | undefined) : undefined;
  if (first?.result === undefined) {
    throw new NoDecisionError('policy_undefined', `the policy gave no result for ${entrypoint}`, {
      hint: 'the policy.wasm does not define this entrypoint; rebuild it with scripts/build-policy.sh',
    });
  }
  return first.result;
}

/** opa-wasm throws strings on aborts (out of memory, conflicting rule outputs); zod throws on a bad shape. */
export function evaluationFailed(error: unknown): TfgateError {
  if (error instanceof TfgateError) return error;
  return new NoDecisionError(
    'policy_evaluation_failed',
    `the policy could not be evaluated: ${describe(error)}`,
    {
      cause: error,
    },
  );
}

export function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) return String(error.message);
  return String(error);
}

/**
 * One batch as the policy's input, `{"now": ..., "resource_changes": [...]}`, holding only what the rules
 * read: address, mode, type, deposed, change.actions, change.importing. Objects of one shape for
 * JSON.stringify: measured faster than concatenating strings by hand. A missing field becomes null, so
 * the policy reports it instead of the wasm JSON parser failing.
 */
export function serializeChanges(
  changes: readonly ResourceChange[],
  prefix: string,
  encoder: { encode(text: string): Uint8Array } = new TextEncoder(),
): Uint8Array {
  const slim = changes.map((rc) => {
    const actions = rc.change?.actions ?? null;
    const importing = rc.change?.importing;
    const change = importing === undefined || importing === null ? { actions } : { actions, importing: {} };
    const address = rc.address ?? null;
    const mode = rc.mode ?? null;
    const type = rc.type ?? null;
    return rc.deposed === undefined
      ? { address, mode, type, change }
      : { address, mode, type, deposed: rc.deposed, change };
  });
  return encoder.encode(`${prefix}${JSON.stringify(slim)}}`);
}

/** `{"now": ..., "resource_changes": [...]}` around reduced changes (`,{...}` each). */
export function reducedInput(
  json: Uint8Array,
  prefix: string,
  encoder: { encode(text: string): Uint8Array } = new TextEncoder(),
): Uint8Array {
  const head = encoder.encode(`${prefix}[`);
  const input = new Uint8Array(head.length + json.length + 1);
  input.set(head);
  input.set(json.subarray(1), head.length);
  input[input.length - 2] = 0x5d; // ]
  input[input.length - 1] = 0x7d; // }
  return input;
}

function combineOutputs(packageId: string, outputs: readonly PlanOutput[]): PlanEvaluation {
  const errors = outputs.flatMap((output) => output.errors);
  if (errors.length > 0) {
    const shown = errors.slice(0, 5).join('; ');
    const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
    throw new InvalidPlanError(`the plan cannot be evaluated: ${shown}${more}`, {
      hint: 'pass the output of `terraform show -json <planfile>` from Terraform 1.0-1.11 or OpenTofu',
      details: { errors },
    });
  }
  const findings: EvalFinding[] = outputs
    .flatMap((output) => output.findings)
    .map(({ capability, acknowledgement, ...finding }) => ({
      id: findingId(packageId, finding.rule, finding.address),
      ...finding,
      ...(capability === undefined ? {} : { capability }),
      ...(acknowledgement === undefined ? {} : { acknowledgement: withoutUndefined(acknowledgement) }),
    }))
    .sort(byAddressThenRule);
  const counts = emptyCounts();
  for (const output of outputs) {
    for (const key of COUNT_KEYS) counts[key] += output.counts[key];
  }
  const expired: ExpiredAcknowledgement[] = outputs
    .flatMap((output) => output.expired_acknowledgements)
    .filter((e) => e.acknowledgement.expires_at !== undefined)
    .map((e) => ({
      finding_id: findingId(packageId, e.rule, e.address),
      rule: e.rule,
      address: e.address,
      ...withoutUndefined(e.acknowledgement),
      expires_at: e.acknowledgement.expires_at!,
    }))
    .sort(byAddressThenRule);
  return { findings, counts, expired };
}

function withoutUndefined<T extends { expires_at?: string | undefined }>(ack: T): T {
  if (ack.expires_at !== undefined) return ack;
  const { expires_at: _, ...rest } = ack;
  return rest as T;
}

/** The bytes as an ArrayBuffer of exactly their length (opa-wasm copies the whole buffer). */
export function exactBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? (bytes.buffer as ArrayBuffer)
    : (bytes.slice().buffer as ArrayBuffer);
}

export function byAddressThenRule(
  a: { address: string; rule: string },
  b: { address: string; rule: string },
): number {
  if (a.address !== b.address) return a.address < b.address ? -1 : 1;
  if (a.rule !== b.rule) return a.rule < b.rule ? -1 : 1;
  return 0;
}

// The policy's output is a boundary too (a bundle may carry its own wasm): check its shape, with the
// contract's schemas less what tfgate adds (the finding id).
// expired_acknowledgements defaults to none: a bundle's older policy.wasm knows no acknowledgements, so its
// findings all block (fail closed).
const planOutputSchema = z.object({
  findings: z.array(z.omit(evalFindingFields, { id: true })),
  counts: evaluationCountsSchema,
  errors: z.array(z.string()),
  expired_acknowledgements: z._default(
    z.array(
      z.object({
        rule: evalFindingFields.shape.rule,
        address: z.string(),
        acknowledgement: acknowledgementSchema,
      }),
    ),
    [],
  ),
});
