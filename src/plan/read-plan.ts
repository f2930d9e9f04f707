import { IncompletePlanError } from '../errors/index.js';
import { PLAN_ACTIONS, type PlanInput, type ResourceChange } from '../model/index.js';
import {
  isFormatVersion,
  isInstanceIndex,
  isMode,
  isNonEmptyString,
  isObject,
  isString,
  missingFields,
  quote,
  typeName,
} from './checks.js';
import { primeOnce } from './prime.js';
import { type JsonInput, type ScanContext, scanStream } from './scan-stream.js';
import {
  arrayNode,
  JsonScanner,
  type ObjectNode,
  objectNode,
  type Problem,
  type ScanOptions,
  valueNode,
} from './scanner/index.js';

export interface ReadPlanOptions {
  /** Shown in error messages. */
  description?: string;
  /**
   * Receives the resource changes in document order, in batches of up to `batchChanges`, as each batch
   * fills (the rest before readPlan resolves); the resolved plan's resource_changes is then []. Act on no
   * batch before readPlan resolved: a later error (bad JSON, `"errored": true`, a bad change) rejects it,
   * and everything delivered must be discarded. A second `resource_changes` key is refused (JSON.parse
   * would keep the last, and the first one's batches are already delivered).
   */
  onChanges?: (batch: ResourceChange[]) => void;
  /**
   * With onChanges, for a caller that only evaluates them (src/policy/evaluate-stream.ts): the resource changes
   * read whole in WebAssembly (the scanner's lane, src/plan/scanner/skip-path.ts) come here instead, already in
   * the policy's input form (`,{...}` each: address, mode, type, deposed, change.actions, change.importing),
   * `count` at a time, in batches of about batchChanges; the others come to onChanges. As with onChanges, act
   * on none before readPlan resolved.
   */
  onReducedChanges?: (json: Uint8Array, count: number) => void;
  /** Largest batch handed to onChanges (default 4096). */
  batchChanges?: number;
}

export const DEFAULT_BATCH_CHANGES = 4096;

export const PLAN_HINT =
  'tfgate reads the JSON rendering of a saved plan: run `terraform plan -out=tfplan && terraform show -json tfplan > plan.json`';

/**
 * Every `change.actions` Terraform 1.0–1.11 and OpenTofu write. ["create","forget"] is Terraform's
 * CreateThenForget (replace under `lifecycle { destroy = false }`); ["forget","create"] is OpenTofu's
 * ForgetThenCreate for the same case.
 */
export const ACTION_SHAPES: readonly (readonly string[])[] = [
  ['no-op'],
  ['create'],
  ['read'],
  ['update'],
  ['delete'],
  ['forget'],
  ['delete', 'create'],
  ['create', 'delete'],
  ['create', 'forget'],
  ['forget', 'create'],
];

const KNOWN_ACTION_LIST: readonly string[] = PLAN_ACTIONS;
const SHAPE_KEYS: ReadonlySet<string> = new Set(ACTION_SHAPES.map((shape) => shape.join(',')));
const SHAPES_TEXT = ACTION_SHAPES.map((shape) => JSON.stringify(shape)).join(', ');

function checkAction(value: unknown): Problem | undefined {
  if (typeof value !== 'string') return { message: `expected an action string, found ${typeName(value)}` };
  // includes, not a Set: each action is a fresh string, and a Set hashes it first (measured 3x slower).
  if (KNOWN_ACTION_LIST.includes(value)) return undefined;
  return {
    message: `unknown action ${quote(value)}: tfgate knows ${PLAN_ACTIONS.map((a) => `"${a}"`).join(', ')} and refuses to pass a plan it cannot judge (a newer Terraform or OpenTofu?)`,
  };
}

/** Every known action alone is a shape, so one (checked) action needs no lookup. */
const SINGLE_ACTIONS_ARE_SHAPES = PLAN_ACTIONS.every((action) => SHAPE_KEYS.has(action));

function checkActions(actions: unknown[]): Problem | undefined {
  if (actions.length === 0) return { message: 'expected at least one action, found an empty array' };
  // Each item passed checkAction (else this array is refused already), so it is a known action string.
  if (actions.length === 1 && SINGLE_ACTIONS_ARE_SHAPES) return undefined;
  if (SHAPE_KEYS.has(actions.join(','))) return undefined;
  return {
    message: `impossible action combination ${JSON.stringify(actions)}: expected one of ${SHAPES_TEXT}`,
  };
}

const changeNode = objectNode(
  'an object (the change)',
  {
    actions: arrayNode('an array of action strings', valueNode(checkAction), checkActions),
    importing: valueNode(isObject),
  },
  {
    close: (change) => missingFields(change, ['actions']),
    skipped: [
      'before',
      'after',
      'after_unknown',
      'before_sensitive',
      'after_sensitive',
      'replace_paths',
      'generated_config',
      'before_identity',
      'after_identity',
    ],
  },
);

const resourceChangeNode = objectNode(
  'an object (a resource change)',
  {
    address: valueNode(isNonEmptyString),
    module_address: valueNode(isString),
    mode: valueNode(isMode),
    type: valueNode(isNonEmptyString),
    name: valueNode(isString),
    index: valueNode(isInstanceIndex),
    provider_name: valueNode(isString),
    deposed: valueNode(isString),
    previous_address: valueNode(isString),
    change: changeNode,
  },
  {
    close: (rc) => missingFields(rc, ['address', 'mode', 'type', 'name', 'change']),
    skipped: ['action_reason'],
  },
);

const RESOURCE_CHANGES_WHAT = 'an array of resource changes';

/** The plan's schema; with `each`, resource changes are handed to it and a second resource_changes is refused. */
const planSchema = (each?: (change: unknown) => void): ObjectNode =>
  objectNode(
    'a JSON object (the output of `terraform show -json <planfile>`)',
    {
      format_version: valueNode(isFormatVersion),
      terraform_version: valueNode(isString),
      resource_changes: arrayNode(RESOURCE_CHANGES_WHAT, resourceChangeNode, undefined, each),
      // Terraform >= 1.4 writes `"errored": true` (last) in a plan saved after planning failed: it is partial.
      errored: valueNode((value) =>
        typeof value === 'boolean'
          ? undefined
          : { message: `expected true or false, found ${typeName(value)}` },
      ),
    },
    {
      close: (plan, seen) => {
        if (!('format_version' in plan))
          return { message: 'missing "format_version": this is not `terraform show -json` output' };
        // Terraform omits resource_changes when nothing changes, but always writes planned_values.
        if ('resource_changes' in plan || seen.has('planned_values')) return undefined;
        if (seen.has('values'))
          return {
            message:
              'it has "values" but no "resource_changes" or "planned_values": this is a state, not a plan (a state file, or `terraform show -json` run without a plan file)',
          };
        return { message: 'it has neither "resource_changes" nor "planned_values": this is not a plan' };
      },
      track: ['planned_values', 'values'],
      skipped: [
        'variables',
        'planned_values',
        'resource_drift',
        'output_changes',
        'prior_state',
        'configuration',
        'relevant_attributes',
        'checks',
        'timestamp',
        'applyable',
        'complete',
      ],
      ...(each ? { once: ['resource_changes'] } : {}),
    },
  );

const planNode = planSchema();

/**
 * Read `terraform show -json` output as a stream and keep only format_version, terraform_version and
 * resource_changes[] (address, mode, type, name, index, module_address, provider_name, deposed,
 * previous_address, change.actions, change.importing). Values never leave this function.
 * Throws InvalidPlanError naming the byte offset or JSON path on bad input, and on unknown actions.
 * A plan without resource_changes (Terraform omits it when nothing changes) gets `resource_changes: []`;
 * a document with neither resource_changes nor planned_values (which Terraform always writes) is not a plan.
 * Input must be UTF-8 without a byte order mark.
 */
export async function readPlan(input: JsonInput, options: ReadPlanOptions = {}): Promise<PlanInput> {
  const context: ScanContext = {
    description: options.description ?? 'the plan JSON',
    expected: 'a Terraform plan in JSON',
    hint: PLAN_HINT,
  };
  primeOnce((streamed) => new JsonScanner(streamed ? planSchema(() => {}) : planNode));
  const onChanges = options.onChanges;
  let batches: ChangeBatches | undefined;
  let schema = planNode;
  if (onChanges) {
    batches = new ChangeBatches(
      onChanges,
      options.batchChanges ?? DEFAULT_BATCH_CHANGES,
      options.onReducedChanges,
    );
    const sink = batches;
    schema = planSchema((change) => sink.add(change as ResourceChange));
  }
  let plan: PlanInput & { errored?: boolean };
  try {
    const scanner = new JsonScanner(schema, {}, laneOptions(batches));
    plan = (await scanStream(input, scanner, context)) as PlanInput & { errored?: boolean };
  } catch (error) {
    // The caller's own error, thrown from onChanges or onReducedChanges, is passed on as it is.
    if (batches?.failure) throw batches.failure.error;
    throw error;
  }
  if (plan.errored === true) {
    throw new IncompletePlanError(
      `the plan is incomplete: terraform reported errors while planning; fix them and plan again (${context.description} has "errored": true, so its resource changes are partial)`,
      {
        hint: 'run terraform plan, fix the errors it reports, and evaluate the new plan: an errored plan is never evaluated or applied',
        details: { source: context.description, path: '$.errored' },
      },
    );
  }
  delete plan.errored;
  if (plan.resource_changes === undefined) plan.resource_changes = [];
  batches?.flush();
  return plan;
}

/** The scanner's lane for resource changes, when the batches take reduced changes. */
function laneOptions(batches: ChangeBatches | undefined): ScanOptions {
  if (!batches?.takesReduced) return {};
  return {
    lane: {
      item: resourceChangeNode,
      batch: batches.size,
      take: (json, count) => batches.addReduced(json, count),
    },
  };
}

/** Gathers resource changes into batches for ReadPlanOptions.onChanges and onReducedChanges. */
class ChangeBatches {
  private batch: ResourceChange[] = [];
  private reduced: Uint8Array[] = [];
  private reducedCount = 0;
  /** What onChanges or onReducedChanges threw, if one did. */
  failure: { error: unknown } | undefined;

  constructor(
    private readonly onChanges: (batch: ResourceChange[]) => void,
    readonly size: number,
    private readonly onReduced?: (json: Uint8Array, count: number) => void,
  ) {
    if (!Number.isSafeInteger(size) || size < 1)
      throw new RangeError(`batchChanges must be a positive integer, got ${size}`);
  }

  get takesReduced(): boolean {
    return this.onReduced !== undefined;
  }

  add(change: ResourceChange): void {
    this.batch.push(change);
    if (this.batch.length >= this.size) this.flushChanges();
  }

  addReduced(json: Uint8Array, count: number): void {
    this.reduced.push(json);
    this.reducedCount += count;
    if (this.reducedCount >= this.size) this.flushReduced();
  }

  flush(): void {
    this.flushChanges();
    this.flushReduced();
  }

  private flushChanges(): void {
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    this.#deliver(() => this.onChanges(batch));
  }

  private flushReduced(): void {
    if (this.reducedCount === 0) return;
    const parts = this.reduced;
    const count = this.reducedCount;
    this.reduced = [];
    this.reducedCount = 0;
    const json = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    this.#deliver(() => this.onReduced!(json, count));
  }

  #deliver(hand: () => void): void {
    try {
      hand();
    } catch (error) {
      this.failure = { error };
      throw error;
    }
  }
}
