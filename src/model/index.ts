// The result model: plain data shared by every stage. It imports nothing, so every layer may depend on it.

export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** True when `severity` is at or above `threshold`. */
export function severityAtLeast(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(threshold);
}

export type Decision = 'pass' | 'block';

/** Every action string Terraform 1.0–1.11 and OpenTofu put in `change.actions`. */
export const PLAN_ACTIONS = ['no-op', 'create', 'read', 'update', 'delete', 'forget'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

/** One entry of a plan's resource_changes[], reduced to what the rules need: never before/after values. */
export interface ResourceChange {
  address: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  index?: string | number;
  module_address?: string;
  provider_name?: string;
  deposed?: string;
  previous_address?: string;
  change: {
    actions: PlanAction[];
    /** Present (an object) when the change imports an existing object. */
    importing?: Record<string, unknown>;
  };
}

/** A plan reduced to what the rules need. Same shape as `terraform show -json`, minus values. */
export interface PlanInput {
  format_version: string;
  terraform_version?: string;
  resource_changes: ResourceChange[];
}

/** One resource of observed state (`terraform show -json` on state), reduced to what the rules need. */
export interface ObservedResource {
  address: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  module_address?: string;
}

/** Observed state reduced to what the drift rules need. */
export interface ObservedStateInput {
  format_version?: string;
  terraform_version?: string;
  resources: ObservedResource[];
}

export const PLAN_RULES = ['unsanctioned_creation', 'capability_dependency_destroyed'] as const;
export const DRIFT_RULES = ['unsanctioned_resource', 'capability_dependency_missing'] as const;
export type PlanRule = (typeof PLAN_RULES)[number];
export type DriftRule = (typeof DRIFT_RULES)[number];
export type RuleId = PlanRule | DriftRule;

/** A finding on a Terraform plan (the contract's EvalFinding). */
export interface EvalFinding {
  id: string;
  rule: PlanRule;
  severity: Severity;
  address: string;
  type: string;
  kind: string;
  actions: PlanAction[];
  capability?: string;
  message: string;
  /** Present while a plan acknowledgement of this finding holds: the finding is reported, never blocks. */
  acknowledgement?: Acknowledgement;
}

export interface EvaluationCounts {
  resource_changes: number;
  creations: number;
  destructions: number;
  unrecognized: number;
  findings: number;
  /** Counted, never flagged. Additive to the contract's counts. */
  updates: number;
  reads: number;
  imports: number;
  forgets: number;
  no_ops: number;
}

export const COUNT_KEYS = [
  'resource_changes',
  'creations',
  'destructions',
  'unrecognized',
  'findings',
  'updates',
  'reads',
  'imports',
  'forgets',
  'no_ops',
] as const satisfies ReadonlyArray<keyof EvaluationCounts>;

/** Every count at zero. */
export function emptyCounts(): EvaluationCounts {
  return Object.fromEntries(COUNT_KEYS.map((key) => [key, 0])) as unknown as EvaluationCounts;
}

/** The contract's evaluation response. The CLI, the service and the bundle all return this. */
export interface EvaluationResult {
  package_id: string;
  decision: Decision;
  min_severity: Severity;
  findings: EvalFinding[];
  counts: EvaluationCounts;
  /** Plan acknowledgements of findings in this plan that had expired at the evaluation time: they block again. */
  expired_acknowledgements?: ExpiredAcknowledgement[];
}

export type FindingStatus = 'open' | 'acknowledged' | 'resolved';

export interface Acknowledgement {
  by: string;
  account: string;
  at: string;
  reason: string;
  /** RFC 3339 (UTC, milliseconds): from this moment on the acknowledgement no longer holds. */
  expires_at?: string;
}

/** An acknowledgement that had expired when a decision was made: its finding was open again. */
export interface ExpiredAcknowledgement extends Acknowledgement {
  finding_id: string;
  rule: RuleId;
  address: string;
  expires_at: string;
}

/** A plan acknowledgement: one rule on one address of one package, with a reason and an optional expiry. */
export interface PlanAcknowledgement extends Acknowledgement {
  /** The stable id of the finding it waives: findingId(package, rule, address). */
  finding_id: string;
  rule: PlanRule;
  address: string;
}

/** True when an acknowledgement with this expiry no longer holds at `nowMs`: expiry is inclusive. */
export function acknowledgementExpired(expiresAt: string | undefined, nowMs: number): boolean {
  return expiresAt !== undefined && Date.parse(expiresAt) <= nowMs;
}

/** A drift finding: observed state against the approved design. */
export interface DriftFinding {
  id: string;
  rule: DriftRule;
  severity: Severity;
  address: string;
  type?: string;
  kind?: string;
  capability?: string;
  message: string;
  status: FindingStatus;
  first_seen_at?: string;
  last_seen_at?: string;
  resolved_at?: string;
  acknowledgement?: Acknowledgement;
}

/** What the drift rules produce before the service adds status and times. */
export type DetectedDrift = Omit<
  DriftFinding,
  'status' | 'first_seen_at' | 'last_seen_at' | 'resolved_at' | 'acknowledgement'
>;

/** The contract's gate response. */
/**
 * Which state a drift check judged: read from the package's backend (`source` is the backend type), or the
 * snapshot last pushed (`pushed`). serial and lineage are terraform's, when the state was read from a backend.
 */
export interface JudgedState {
  source: string;
  serial: number | null;
  lineage: string | null;
  /** When the backend was read, or when the pushed snapshot was pushed. */
  read_at: string;
  /** Set when the backend read failed and the package's fallback judged the pushed snapshot instead. */
  fallback_from?: string;
  read_error?: string;
}

export interface GateResult {
  package_id: string;
  decision: Decision;
  min_severity: Severity;
  refreshed: boolean;
  drift_checked_at: string;
  /** The state the check judged (absent only for a check recorded before the service knew state sources). */
  state?: JudgedState;
  blocking: DriftFinding[];
  acknowledged: DriftFinding[];
  counts: { open: number; acknowledged: number; blocking: number };
  /** Acknowledgements of these findings that had expired at the decision time: their findings are open again. */
  expired_acknowledgements?: ExpiredAcknowledgement[];
}

/** Block when any finding not acknowledged is at or above the threshold. */
export function decide(
  findings: ReadonlyArray<{ severity: Severity; acknowledgement?: unknown }>,
  minSeverity: Severity,
): Decision {
  return findings.some((f) => f.acknowledgement === undefined && severityAtLeast(f.severity, minSeverity))
    ? 'block'
    : 'pass';
}

/**
 * Where a plan address is declared in the configuration, for reports (the rules never see it): the block's
 * file, relative to the repository root with forward slashes, and the line the block starts on.
 */
export interface SourceLocation {
  /** e.g. `modules/app/main.tf`, or `cdktf.out/stacks/app/cdk.tf.json`. */
  file: string;
  /** 1-based line of the `resource`/`data` block (or of its key in JSON). */
  line: number;
  /**
   * Set when the resource lives in a module whose source is not in the repository (a registry or git module
   * under .terraform/modules): the location is then that module's call, e.g. `module.vpc`.
   */
  moduleCall?: string;
  /** CDKTF / CDK Terrain: the construct path recorded beside the resource in the synthesized JSON. */
  constructPath?: string;
}

/**
 * The decision over many plans (`tfgate check` with several roots): blocked if any root is blocked, else no
 * decision if any root has none, else pass. An empty set has no decision: nothing judged is never a pass.
 */
export type CombinedDecision = Decision | 'no_decision';

export function combineDecisions(decisions: Iterable<Decision | undefined>): CombinedDecision {
  let combined: CombinedDecision | undefined;
  for (const decision of decisions) {
    if (decision === 'block') return 'block';
    if (decision === undefined) combined = 'no_decision';
    else combined ??= 'pass';
  }
  return combined ?? 'no_decision';
}
