// The approved design enforced at synth time: the aspect's lifecycle. Loading (bundle verification, wasm
// compilation: loaders.ts) is async and happens before synth; each stack is evaluated inside synth,
// synchronously, with the same policy as plans (evaluate-stack.ts), then reported as node validations and
// warnings (messages.ts) and recorded in the synth output (synth-record.ts).
import type { Design } from '../design/index.js';
import { UsageError } from '../errors/index.js';
import type { EvaluationCounts, Severity } from '../model/index.js';
import type { PolicyData } from '../policy/data.js';
import type { PolicyEngine } from '../policy/engine.js';
import { type AcknowledgementInput, acknowledgementsFor, addAcknowledgement } from './acknowledgements.js';
import {
  type AspectsApi,
  addWarning,
  appOf,
  type ConstructLike,
  describeValue,
  findToolkitAspects,
  isConstruct,
  isTerraformResource,
  isTerraformStack,
  stackOf,
  stacksUnder,
  type TerraformResourceLike,
  type TerraformStackLike,
} from './constructs.js';
import { evaluateStack, type SynthFinding } from './evaluate-stack.js';
import { type LoadedPolicy, loadFromBundle, loadFromDesign, loadFromService } from './loaders.js';
import { findingMessage, stackMessages } from './messages.js';
import type { FromBundleOptions, FromDesignOptions, FromServiceOptions } from './options.js';
import { conformanceRecord, writeRecord } from './synth-record.js';
import {
  movedFromAddresses,
  readSynthesizedStack,
  type SynthesizedResource,
  synthesizedResources,
  synthesizedStackFile,
} from './synthesized-stack.js';

export type { FindingOutcome, SynthFinding } from './evaluate-stack.js';
export type {
  ConformanceOptions,
  FromBundleOptions,
  FromDesignOptions,
  FromServiceOptions,
} from './options.js';
export type { ConformanceRecord } from './synth-record.js';

/** The result of checking one stack during one synth. */
export interface StackConformance {
  stack: string;
  packageId: string;
  findings: SynthFinding[];
  counts: EvaluationCounts;
  /** Why destructions could not be checked, when they could not (first synth, HCL output). */
  destructionCheck: 'checked' | 'no_previous_synth' | 'hcl_output' | 'no_app';
}

/** One stack's state for the synth in progress. */
interface StackRun {
  /** Set by the first visit of a synth, cleared when the stack's validations have run. */
  collecting: boolean;
  previous: SynthesizedResource[] | undefined;
  destructionCheck: StackConformance['destructionCheck'];
  result: StackResult | undefined;
}

interface StackResult {
  conformance: StackConformance;
  /** Error messages per construct path (resources), and for the stack itself (destructions, orphans). */
  errorsByPath: Map<string, string[]>;
  stackErrors: string[];
}

/**
 * A CDKTF aspect (IAspect) that evaluates every TerraformResource of a stack as a creation, and every
 * resource that disappeared since the previous synth as a destruction, against the package's approved
 * design. Findings fail synth (node validations); advisory mode turns them into warnings.
 *
 * Attach it with `applyConformance(app, aspect)`: in CDKTF, `Aspects.of(app)` never runs.
 */
export class ConformanceAspect {
  readonly packageId: string;
  readonly advisory: boolean;
  readonly minSeverity: Severity;
  /** Where the policy came from, as recorded in the synth output. */
  readonly policy: string;
  readonly signed: boolean;
  readonly #engine: PolicyEngine;
  readonly #data: PolicyData;
  readonly #runs = new WeakMap<TerraformStackLike, StackRun>();
  readonly #validated = new WeakSet<ConstructLike>();
  readonly #attached = new WeakSet<TerraformStackLike>();
  /** Stacks evaluated since the app-level guard last ran (it runs once, at the end of each App.synth). */
  #checkedThisSynth = new WeakSet<TerraformStackLike>();
  /** The toolkit's Aspects class per app (root), as applyConformance found it: apps may use either toolkit. */
  readonly #aspectsByRoot = new WeakMap<ConstructLike, AspectsApi>();

  private constructor(loaded: LoadedPolicy) {
    this.#engine = loaded.engine;
    this.#data = loaded.data;
    this.packageId = loaded.data.package_id;
    this.policy = loaded.description;
    this.signed = loaded.signed;
    this.advisory = loaded.options.advisory;
    this.minSeverity = loaded.options.minSeverity;
  }

  /** Verify a signed bundle with the platform public key, then load its policy. Call before synth. */
  static async fromBundle(path: string, options: FromBundleOptions = {}): Promise<ConformanceAspect> {
    return new ConformanceAspect(await loadFromBundle(path, options));
  }

  /**
   * Download the package's bundle (and the platform public key, unless pinned) from the service with
   * tfgate's client (retries, proxies, CAs), verify it, load it.
   */
  static async fromService(options: FromServiceOptions): Promise<ConformanceAspect> {
    return new ConformanceAspect(await loadFromService(options));
  }

  /**
   * A design evaluated with the policy that ships with tfgate: no bundle, no signature. For local
   * development and tests; pipelines should use fromBundle or fromService.
   */
  static async fromDesign(
    design: Design | string,
    options: FromDesignOptions = {},
  ): Promise<ConformanceAspect> {
    return new ConformanceAspect(await loadFromDesign(design, options));
  }

  /**
   * Acknowledge the findings of `rule` on `construct` and everything under it (or only at `address`).
   * An acknowledged finding is reported as a warning, never blocks, and is recorded in the synth output.
   * The reason is required. Acknowledge on the stack to cover destructions (their construct is gone).
   */
  static acknowledge(construct: ConstructLike, acknowledgement: AcknowledgementInput): void {
    addAcknowledgement(construct, acknowledgement);
  }

  /** IAspect: called by CDKTF for every construct of a stack the aspect is attached to, during synth. */
  visit(node: ConstructLike): void {
    if (isTerraformStack(node)) {
      this.#begin(node);
      return;
    }
    if (!isTerraformResource(node)) return;
    const stack = stackOf(node);
    if (!stack) return;
    this.#begin(stack);
    if (!this.#validated.has(node)) {
      this.#validated.add(node);
      node.node.addValidation({ validate: () => this.#errorsFor(stack, node.node.path) });
    }
  }

  /** See applyConformance. Returns the stacks it attached to. */
  attachTo(scope: ConstructLike, options: ApplyConformanceOptions = {}): TerraformStackLike[] {
    if (!isConstruct(scope) || typeof scope.node.findAll !== 'function') {
      throw new UsageError(
        'invalid_argument',
        `applyConformance: the first argument must be a CDKTF App or TerraformStack (a construct), not ${describeValue(scope)}`,
        {
          hint: 'call applyConformance(app, aspect) with the App the stacks are defined in, just before app.synth()',
        },
      );
    }
    const stacks = isTerraformStack(scope) ? [scope] : stacksUnder(scope);
    if (stacks.length === 0) {
      throw new UsageError(
        'no_stacks',
        `applyConformance: no TerraformStack at or under ${JSON.stringify(scope.node.path || '(app)')}`,
        { hint: 'call applyConformance(app, aspect) after the stacks are defined, just before app.synth()' },
      );
    }
    const root = scope.node.root;
    const aspects = options.aspects ?? this.#aspectsByRoot.get(root) ?? findToolkitAspects(stacks[0]!);
    if (!aspects) {
      throw new UsageError(
        'toolkit_not_found',
        'applyConformance: cannot find the Aspects class of the CDKTF toolkit (cdktf or cdktn) these stacks were built with',
        {
          hint: "pass it: applyConformance(app, aspect, { aspects: Aspects }) with Aspects imported from 'cdktf' or 'cdktn'",
        },
      );
    }
    this.#aspectsByRoot.set(root, aspects);
    for (const stack of stacks) this.#attach(stack, aspects);
    if (!isTerraformStack(scope) && !this.#validated.has(scope)) {
      this.#validated.add(scope);
      // Runs at the end of App.synth: a stack added after this call and never checked fails the synth.
      scope.node.addValidation({
        validate: () => {
          const unchecked = stacksUnder(scope).filter((stack) => !this.#checkedThisSynth.has(stack));
          this.#checkedThisSynth = new WeakSet();
          return unchecked.map((stack) => stackMessages.addedLate(stack.node.path, this.packageId));
        },
      });
    }
    return stacks;
  }

  #attach(stack: TerraformStackLike, aspects: AspectsApi): void {
    if (this.#attached.has(stack)) return;
    this.#attached.add(stack);
    aspects.of(stack).add(this);
    // Fail closed if the toolkit did not run the aspect on this stack (e.g. another copy of the toolkit).
    stack.node.addValidation({
      validate: () =>
        this.#runs.get(stack)?.collecting === true ? [] : [stackMessages.notRun(this.packageId)],
    });
  }

  /** The result of the last synth's check of `stack` (undefined before its validations ran). */
  conformanceOf(stack: ConstructLike): StackConformance | undefined {
    const found = isTerraformStack(stack) ? stack : stackOf(stack);
    return found ? this.#runs.get(found)?.result?.conformance : undefined;
  }

  /** First visit of a synth: read the previous synth of the stack before this synth overwrites it. */
  #begin(stack: TerraformStackLike): void {
    const run = this.#runs.get(stack);
    if (run?.collecting) return;
    const app = appOf(stack);
    if (app?.skipValidation && !this.advisory) {
      throw new UsageError(
        'validation_skipped',
        `tfgate: stack ${stack.node.path} is synthesized with skipValidation: true, so conformance findings could not fail synth`,
        { hint: 'remove skipValidation from the App, or create the aspect with { advisory: true }' },
      );
    }
    if (app?.skipValidation && run === undefined) {
      // Findings are computed by validations, which this app skips: say so rather than pass silently.
      addWarning(stack, stackMessages.validationSkipped(stack.node.path, this.packageId));
    }
    let previous: SynthesizedResource[] | undefined;
    let destructionCheck: StackConformance['destructionCheck'];
    if (!app) destructionCheck = 'no_app';
    else if (app.hclOutput) destructionCheck = 'hcl_output';
    else {
      previous = readSynthesizedStack(synthesizedStackFile(app.outdir, stack.node.id));
      destructionCheck = previous === undefined ? 'no_previous_synth' : 'checked';
    }
    this.#runs.set(stack, { collecting: true, previous, destructionCheck, result: undefined });
    // Stacks defined after applyConformance(app) still get the aspect if they synthesize after this one.
    const aspects = this.#aspectsByRoot.get(stack.node.root);
    if (aspects) {
      for (const other of stacksUnder(stack.node.root)) this.#attach(other, aspects);
    }
    if (!this.#validated.has(stack)) {
      this.#validated.add(stack);
      stack.node.addValidation({ validate: () => this.#finishStack(stack) });
    }
  }

  #finishStack(stack: TerraformStackLike): string[] {
    const result = this.#result(stack);
    this.#checkedThisSynth.add(stack);
    const run = this.#runs.get(stack);
    if (run) run.collecting = false;
    return result?.stackErrors ?? [];
  }

  #errorsFor(stack: TerraformStackLike, path: string): string[] {
    return this.#result(stack)?.errorsByPath.get(path) ?? [];
  }

  #result(stack: TerraformStackLike): StackResult | undefined {
    const run = this.#runs.get(stack);
    if (!run) return undefined;
    run.result ??= this.#evaluate(stack, run);
    return run.result;
  }

  /** Evaluate the stack (evaluate-stack.ts), then report each finding on its construct and record them. */
  #evaluate(stack: TerraformStackLike, run: StackRun): StackResult {
    const constructs = new Map<string, TerraformResourceLike>();
    for (const construct of stack.node.findAll()) {
      if (isTerraformResource(construct) && stackOf(construct) === stack) {
        constructs.set(`${construct.terraformResourceType}.${construct.friendlyUniqueId}`, construct);
      }
    }
    // What synth writes, not the constructs alone: an override (addOverride) adds or removes resources
    // no construct shows, and a moved block (moveFromId, moveTo) is not a destruction, as in the plan.
    const config = stack.toTerraform();
    const synthesized = synthesizedResources(config, `stack ${stack.node.path}`);
    const { findings, counts } = evaluateStack({
      engine: this.#engine,
      data: this.#data,
      stackPath: stack.node.path,
      resources: synthesized.map((resource) => ({
        address: resource.address,
        type: resource.type,
        name: resource.name,
        constructPath:
          constructs.get(resource.address)?.node.path ?? resource.constructPath ?? `${stack.node.path}/?`,
      })),
      previous: run.previous,
      movedFrom: movedFromAddresses(config),
      acknowledgements: acknowledgementsFor(stack),
      minSeverity: this.minSeverity,
      advisory: this.advisory,
    });

    const errorsByPath = new Map<string, string[]>();
    const stackErrors: string[] = [];
    const context = {
      packageId: this.packageId,
      minSeverity: this.minSeverity,
      sanctionedKinds: this.#data.sanctioned_kinds,
    };
    for (const finding of findings) {
      const construct = constructs.get(finding.address);
      const message = findingMessage(finding, context);
      if (finding.outcome !== 'blocking') {
        addWarning(construct ?? stack, message);
      } else if (construct && this.#validated.has(construct)) {
        const list = errorsByPath.get(finding.constructPath) ?? [];
        list.push(message);
        errorsByPath.set(finding.constructPath, list);
      } else {
        // A destruction (its construct is gone), or a resource the aspect did not visit: the stack reports it.
        stackErrors.push(`[${finding.constructPath}] ${message}`);
      }
    }
    const conformance: StackConformance = {
      stack: stack.node.id,
      packageId: this.packageId,
      findings,
      counts,
      destructionCheck: run.destructionCheck,
    };
    if (run.destructionCheck === 'hcl_output') addWarning(stack, stackMessages.hclOutput);
    const record = conformanceRecord({
      packageId: this.packageId,
      policy: this.policy,
      signed: this.signed,
      advisory: this.advisory,
      minSeverity: this.minSeverity,
      counts,
      findings,
    });
    writeRecord(stack, record);
    return { conformance, errorsByPath, stackErrors };
  }
}

export interface ApplyConformanceOptions {
  /** The toolkit's Aspects class, when it cannot be found automatically (e.g. a bundled app). */
  aspects?: AspectsApi;
}

/**
 * Attach `aspect` to every stack at or under `scope` (an App or a stack). In CDKTF aspects run per stack,
 * so `Aspects.of(app).add(aspect)` is silently never run: use this instead. Stacks defined after the call
 * are attached when an earlier stack synthesizes; one that is never checked fails App.synth().
 */
export function applyConformance(
  scope: ConstructLike,
  aspect: ConformanceAspect,
  options: ApplyConformanceOptions = {},
): TerraformStackLike[] {
  // Duck-typed: an aspect made by another copy of tfgate in the process attaches the same way.
  if (typeof (aspect as Partial<ConformanceAspect> | null | undefined)?.attachTo !== 'function') {
    const pending = typeof (aspect as { then?: unknown } | null | undefined)?.then === 'function';
    throw new UsageError(
      'invalid_argument',
      `applyConformance: the second argument must be a ConformanceAspect, not ${pending ? 'a Promise (the aspect was not awaited)' : describeValue(aspect)}`,
      {
        hint: 'create the aspect before synth and await it: applyConformance(app, await ConformanceAspect.fromBundle(path, { publicKey })) (or fromService, fromDesign)',
      },
    );
  }
  return aspect.attachTo(scope, options);
}
