// The approved design enforced at synth time. Loading (bundle verification, wasm instantiation) is async
// and happens before synth; evaluation happens inside synth, synchronously, with the same policy as plans.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ServiceClient } from '../client/index.js';
import { type Design, loadDesign } from '../design/index.js';
import { NoDecisionError, UsageError } from '../errors/index.js';
import {
  type EvalFinding,
  type EvaluationCounts,
  type PlanInput,
  type ResourceChange,
  SEVERITIES,
  type Severity,
  severityAtLeast,
} from '../model/index.js';
import { UNSIGNED_BUNDLE_WARNING, verifyBundle } from '../policy/bundle/index.js';
import { compilePolicyData, type PolicyData } from '../policy/data.js';
import { PolicyEngine } from '../policy/engine.js';
import {
  type AcknowledgementInput,
  acknowledgementsFor,
  addAcknowledgement,
  type CodeAcknowledgement,
  matchAcknowledgement,
} from './acknowledgements.js';
import {
  type AspectsApi,
  addWarning,
  appOf,
  type ConstructLike,
  findToolkitAspects,
  isTerraformResource,
  isTerraformStack,
  stackOf,
  stacksUnder,
  type TerraformResourceLike,
  type TerraformStackLike,
} from './constructs.js';
import { readSynthesizedStack, type SynthesizedResource, synthesizedStackFile } from './synthesized-stack.js';

const conformanceOptionsSchema = z.object({
  /** Findings become warnings: synth never fails because of them. */
  advisory: z.boolean().default(false),
  /** Findings below this severity are warnings, not errors. Default `low`: every finding blocks. */
  minSeverity: z.enum(SEVERITIES).default('low'),
});

const pemSchema = z.union([z.string().min(1), z.instanceof(Uint8Array)]);

const fromBundleOptionsSchema = conformanceOptionsSchema
  .extend({
    /** The platform public key: PEM text, or the path of a PEM file. */
    publicKey: pemSchema.optional(),
    /** Refuse a bundle built for another package. */
    packageId: z.string().min(1).optional(),
    /** Accept an unsigned bundle. INSECURE: for local experiments only; a loud warning is printed. */
    allowUnsigned: z.boolean().default(false),
  })
  .strict();

const fromServiceOptionsSchema = conformanceOptionsSchema
  .extend({
    packageId: z.string().min(1),
    /** Default: TFGATE_BASE_URL. */
    baseUrl: z.string().min(1).optional(),
    /** Default: TFGATE_API_KEY (from the pipeline's secret store). Never printed. */
    apiKey: z.string().min(1).optional(),
    /** Pin the platform public key (PEM text or path) instead of fetching it from the same service. */
    publicKey: pemSchema.optional(),
    /** A CA bundle (PEM file) for a service behind a private CA; NODE_EXTRA_CA_CERTS works too. */
    caFile: z.string().min(1).optional(),
  })
  .strict();

const fromDesignOptionsSchema = conformanceOptionsSchema.strict();

export type ConformanceOptions = z.input<typeof conformanceOptionsSchema>;
export type FromBundleOptions = z.input<typeof fromBundleOptionsSchema>;
export type FromServiceOptions = z.input<typeof fromServiceOptionsSchema>;
export type FromDesignOptions = z.input<typeof fromDesignOptionsSchema>;

/** How one finding ended: blocking fails synth; the others are warnings. */
export type FindingOutcome = 'blocking' | 'acknowledged' | 'advisory' | 'below_threshold';

export interface SynthFinding extends EvalFinding {
  /** The construct that defines the resource (for a destruction: the path it had in the previous synth). */
  constructPath: string;
  outcome: FindingOutcome;
  /** The acknowledgement's reason, when acknowledged. */
  reason?: string;
}

/** The result of checking one stack during one synth. */
export interface StackConformance {
  stack: string;
  packageId: string;
  findings: SynthFinding[];
  counts: EvaluationCounts;
  /** Why destructions could not be checked, when they could not (first synth, HCL output). */
  destructionCheck: 'checked' | 'no_previous_synth' | 'hcl_output' | 'no_app';
}

/** What is written to the synthesized stack under `"//": {"tfgate": {"<package id>": ...}}`, for audit. */
export interface ConformanceRecord {
  package_id: string;
  policy: string;
  signed: boolean;
  mode: 'enforce' | 'advisory';
  min_severity: Severity;
  counts: EvaluationCounts;
  acknowledged: AuditedFinding[];
  warnings: AuditedFinding[];
}

interface AuditedFinding {
  id: string;
  rule: string;
  severity: Severity;
  address: string;
  type: string;
  kind: string;
  construct_path: string;
  capability?: string;
  message: string;
  reason?: string;
  outcome: FindingOutcome;
}

interface PolicySource {
  /** Shown in messages and recorded: "bundle <path> (revision r)", "service <url> ...", "design <file>". */
  description: string;
  signed: boolean;
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

const records = new WeakMap<TerraformStackLike, Record<string, ConformanceRecord>>();

function resolvePem(value: string | Uint8Array, what: string): Promise<Buffer> | Buffer {
  if (typeof value !== 'string') return Buffer.from(value);
  if (value.includes('-----BEGIN')) return Buffer.from(value, 'utf8');
  return readFile(value).catch((error: unknown) => {
    throw new UsageError('file_unreadable', `cannot read the ${what} ${value}: ${(error as Error).message}`, {
      cause: error,
      hint: 'pass the PEM text itself, or the path of a PEM file',
    });
  });
}

function parseOptions<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new UsageError(
    'invalid_options',
    `${where}: ${issue.path.join('.') || '(options)'}: ${issue.message}`,
  );
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

  private constructor(
    engine: PolicyEngine,
    data: PolicyData,
    source: PolicySource,
    options: z.output<typeof conformanceOptionsSchema>,
  ) {
    this.#engine = engine;
    this.#data = data;
    this.packageId = data.package_id;
    this.policy = source.description;
    this.signed = source.signed;
    this.advisory = options.advisory;
    this.minSeverity = options.minSeverity;
  }

  /** Verify a signed bundle with the platform public key, then load its policy. Call before synth. */
  static async fromBundle(path: string, options: FromBundleOptions = {}): Promise<ConformanceAspect> {
    const parsed = parseOptions(fromBundleOptionsSchema, options, 'ConformanceAspect.fromBundle');
    if (parsed.publicKey === undefined && !parsed.allowUnsigned) {
      throw new UsageError('public_key_required', 'ConformanceAspect.fromBundle: publicKey is required', {
        hint: "pass { publicKey: '<path of the platform public key PEM>' } (tfgate bundle pull saves one)",
      });
    }
    const [bytes, publicKeyPem] = await Promise.all([
      readFile(path).catch((error: unknown) => {
        throw new UsageError(
          'file_unreadable',
          `cannot read the bundle ${path}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }),
      parsed.publicKey === undefined ? undefined : resolvePem(parsed.publicKey, 'public key'),
    ]);
    const bundle = await verifyBundle(bytes, {
      publicKeyPem,
      expectedPackageId: parsed.packageId,
      allowUnsigned: parsed.allowUnsigned,
    });
    if (!bundle.signed) process.stderr.write(`${UNSIGNED_BUNDLE_WARNING}\n`);
    const engine = await PolicyEngine.load(bundle.wasm);
    return new ConformanceAspect(
      engine,
      bundle.data,
      {
        description: `bundle ${path} (revision ${bundle.revision}${bundle.signed ? `, key ${bundle.keyId ?? 'unnamed'}` : ', UNSIGNED'})`,
        signed: bundle.signed,
      },
      parsed,
    );
  }

  /**
   * Download the package's bundle (and the platform public key, unless pinned) from the service with
   * tfgate's client (retries, proxies, CAs), verify it, load it.
   */
  static async fromService(options: FromServiceOptions): Promise<ConformanceAspect> {
    const parsed = parseOptions(fromServiceOptionsSchema, options, 'ConformanceAspect.fromService');
    const env = parsed.apiKey === undefined ? process.env : { ...process.env, TFGATE_API_KEY: parsed.apiKey };
    const client = await ServiceClient.fromOptions(
      { ...(parsed.baseUrl === undefined ? {} : { baseUrl: parsed.baseUrl }), caFile: parsed.caFile },
      env,
    );
    try {
      const pinned =
        parsed.publicKey === undefined ? undefined : await resolvePem(parsed.publicKey, 'public key');
      const [download, fetchedKey] = await Promise.all([
        client.bundle(parsed.packageId),
        pinned === undefined ? client.publicKeyPem() : undefined,
      ]);
      if (download.status !== 'downloaded') {
        throw new NoDecisionError(
          'bundle_not_downloaded',
          `the service sent no bundle for ${parsed.packageId}`,
        );
      }
      const bundle = await verifyBundle(download.bytes, {
        publicKeyPem: pinned ?? fetchedKey,
        expectedPackageId: parsed.packageId,
      });
      const engine = await PolicyEngine.load(bundle.wasm);
      const key = `key ${bundle.keyId ?? 'unnamed'}${pinned ? ', pinned' : ''}`;
      return new ConformanceAspect(
        engine,
        bundle.data,
        {
          description: `service ${client.baseUrl} package ${bundle.packageId} (revision ${bundle.revision}, ${key})`,
          signed: true,
        },
        parsed,
      );
    } finally {
      await client.close();
    }
  }

  /**
   * A design evaluated with the policy that ships with tfgate: no bundle, no signature. For local
   * development and tests; pipelines should use fromBundle or fromService.
   */
  static async fromDesign(
    design: Design | string,
    options: FromDesignOptions = {},
  ): Promise<ConformanceAspect> {
    const parsed = parseOptions(fromDesignOptionsSchema, options, 'ConformanceAspect.fromDesign');
    const loaded = typeof design === 'string' ? await loadDesign(design) : design;
    const engine = await PolicyEngine.load();
    const description =
      typeof design === 'string' ? `design ${design} (unsigned, local)` : 'design object (unsigned, local)';
    return new ConformanceAspect(engine, compilePolicyData(loaded), { description, signed: false }, parsed);
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
          return unchecked.map(
            (stack) =>
              `[tfgate] stack ${stack.node.path} was not checked against package ${this.packageId}: it was added after applyConformance(); call applyConformance(app, aspect) after defining every stack`,
          );
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
        this.#runs.get(stack)?.collecting === true
          ? []
          : [
              `[tfgate] the conformance aspect for package ${this.packageId} did not run on this stack, so it was not checked; if the app bundles its own copy of the toolkit, pass it: applyConformance(app, aspect, { aspects: Aspects })`,
            ],
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
      addWarning(
        stack,
        `[tfgate] skipValidation is set: stack ${stack.node.path} was not checked against package ${this.packageId}`,
      );
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

  /** Evaluate the whole stack at once: its resources as creations, vanished ones as destructions. */
  #evaluate(stack: TerraformStackLike, run: StackRun): StackResult {
    const current = new Map<string, TerraformResourceLike>();
    for (const construct of stack.node.findAll()) {
      if (isTerraformResource(construct) && stackOf(construct) === stack) {
        current.set(`${construct.terraformResourceType}.${construct.friendlyUniqueId}`, construct);
      }
    }
    const changes: ResourceChange[] = [];
    for (const [address, construct] of current) {
      changes.push(change(address, construct.terraformResourceType, construct.friendlyUniqueId, 'create'));
    }
    const vanished = new Map<string, SynthesizedResource>();
    for (const resource of run.previous ?? []) {
      if (current.has(resource.address) || vanished.has(resource.address)) continue;
      vanished.set(resource.address, resource);
      changes.push(change(resource.address, resource.type, resource.name, 'delete'));
    }
    const plan: PlanInput = { format_version: '1.2', resource_changes: changes };
    const evaluation = this.#engine.evaluatePlan(this.#data, plan);

    const acknowledgements = acknowledgementsFor(stack);
    const errorsByPath = new Map<string, string[]>();
    const stackErrors: string[] = [];
    const findings: SynthFinding[] = [];
    for (const finding of evaluation.findings) {
      const construct = current.get(finding.address);
      const constructPath =
        construct?.node.path ?? vanished.get(finding.address)?.constructPath ?? `${stack.node.path}/?`;
      const ack = matchAcknowledgement(acknowledgements, { ...finding, constructPath });
      const outcome = this.#outcome(finding, ack);
      const synthFinding: SynthFinding = { ...finding, constructPath, outcome };
      if (ack) synthFinding.reason = ack.reason;
      findings.push(synthFinding);

      const message = this.#message(synthFinding);
      if (outcome !== 'blocking') {
        addWarning(construct ?? stack, message);
      } else if (construct && this.#validated.has(construct)) {
        const list = errorsByPath.get(constructPath) ?? [];
        list.push(message);
        errorsByPath.set(constructPath, list);
      } else {
        // A destruction (its construct is gone), or a resource the aspect did not visit: the stack reports it.
        stackErrors.push(`[${constructPath}] ${message}`);
      }
    }
    const conformance: StackConformance = {
      stack: stack.node.id,
      packageId: this.packageId,
      findings,
      counts: evaluation.counts,
      destructionCheck: run.destructionCheck,
    };
    if (run.destructionCheck === 'hcl_output') {
      addWarning(stack, '[tfgate] destructions are not checked at synth time with HCL output (hclOutput)');
    }
    this.#record(stack, conformance);
    return { conformance, errorsByPath, stackErrors };
  }

  #outcome(finding: EvalFinding, ack: CodeAcknowledgement | undefined): FindingOutcome {
    if (ack) return 'acknowledged';
    if (!severityAtLeast(finding.severity, this.minSeverity)) return 'below_threshold';
    return this.advisory ? 'advisory' : 'blocking';
  }

  /** One line that names the rule, severity, construct, type, kind, address and the design's rule. */
  #message(finding: SynthFinding): string {
    const lead = {
      blocking: '[tfgate]',
      acknowledged: `[tfgate] acknowledged (reason: ${finding.reason ?? ''}):`,
      advisory: '[tfgate] advisory, not blocking:',
      below_threshold: `[tfgate] below min severity ${this.minSeverity}, not blocking:`,
    }[finding.outcome];
    const design =
      finding.rule === 'unsanctioned_creation'
        ? `the approved design of package ${this.packageId} sanctions only ${this.#data.sanctioned_kinds.length ? this.#data.sanctioned_kinds.join(', ') : 'no kinds'}`
        : `capability ${finding.capability ?? '?'} of package ${this.packageId} depends on it`;
    const subject =
      finding.rule === 'capability_dependency_destroyed'
        ? `${finding.type} ${finding.address} (construct ${finding.constructPath}, kind ${finding.kind}) was removed since the previous synth`
        : `${finding.type} ${finding.address} (construct ${finding.constructPath}) is of kind ${finding.kind}`;
    const fix =
      finding.outcome === 'blocking'
        ? ` To proceed: change the code, get the design changed, or ConformanceAspect.acknowledge(construct, { rule: '${finding.rule}', reason }).`
        : '';
    // The policy's own message says the same in fewer words; it is kept in the audit record.
    return `${lead} ${finding.rule} (${finding.severity}): ${subject}; ${design}.${fix}`;
  }

  /** The audit record, in the synthesized stack's "//" comment section (Terraform ignores "//" keys). */
  #record(stack: TerraformStackLike, conformance: StackConformance): void {
    const audited = (f: SynthFinding): AuditedFinding => ({
      id: f.id,
      rule: f.rule,
      severity: f.severity,
      address: f.address,
      type: f.type,
      kind: f.kind,
      construct_path: f.constructPath,
      ...(f.capability === undefined ? {} : { capability: f.capability }),
      message: f.message,
      ...(f.reason === undefined ? {} : { reason: f.reason }),
      outcome: f.outcome,
    });
    const record: ConformanceRecord = {
      package_id: this.packageId,
      policy: this.policy,
      signed: this.signed,
      mode: this.advisory ? 'advisory' : 'enforce',
      min_severity: this.minSeverity,
      counts: conformance.counts,
      acknowledged: conformance.findings.filter((f) => f.outcome === 'acknowledged').map(audited),
      warnings: conformance.findings
        .filter((f) => f.outcome === 'advisory' || f.outcome === 'below_threshold')
        .map(audited),
    };
    const all = records.get(stack) ?? {};
    all[this.packageId] = record;
    records.set(stack, all);
    stack.addOverride('//.tfgate', all);
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
  return aspect.attachTo(scope, options);
}

function change(address: string, type: string, name: string, action: 'create' | 'delete'): ResourceChange {
  return { address, mode: 'managed', type, name, change: { actions: [action] } };
}
