// The pure part of the aspect: one stack's resources (and those gone since the previous synth) evaluated
// against the design, each finding given its outcome. No construct is touched here: the aspect reports the
// outcomes (messages.ts) and records them (synth-record.ts), as cdk-nag's rules leave reporting to a logger.
import {
  type EvalFinding,
  type EvaluationCounts,
  type PlanInput,
  type ResourceChange,
  type Severity,
  severityAtLeast,
} from '../model/index.js';
import type { PolicyData } from '../policy/data.js';
import type { PolicyEngine } from '../policy/engine.js';
import { type CodeAcknowledgement, matchAcknowledgement } from './acknowledgements.js';
import type { SynthesizedResource } from './synthesized-stack.js';

/** How one finding ended: blocking fails synth; the others are warnings. */
export type FindingOutcome = 'blocking' | 'acknowledged' | 'advisory' | 'below_threshold';

export interface SynthFinding extends EvalFinding {
  /** The construct that defines the resource (for a destruction: the path it had in the previous synth). */
  constructPath: string;
  outcome: FindingOutcome;
  /** The acknowledgement's reason, when acknowledged. */
  reason?: string;
  /** When the acknowledgement that holds ends (acknowledged), or when the one that matched ended (expired). */
  expiresAt?: string;
  /** Set when the only acknowledgement of this finding had expired at synth: it blocks again. */
  expiredAcknowledgement?: { reason: string; expiresAt: string };
}

/** A resource the stack defines now. */
export interface StackResource {
  address: string;
  type: string;
  name: string;
  constructPath: string;
}

export interface StackEvaluationInput {
  engine: PolicyEngine;
  data: PolicyData;
  /** The stack's path, for findings whose construct cannot be found. */
  stackPath: string;
  resources: readonly StackResource[];
  /** The previous synth's resources; undefined when destructions cannot be checked. */
  previous: readonly SynthesizedResource[] | undefined;
  /** Addresses this synth moves elsewhere (moved blocks): gone from the previous synth's place, not destroyed. */
  movedFrom?: ReadonlySet<string>;
  acknowledgements: readonly CodeAcknowledgement[];
  minSeverity: Severity;
  advisory: boolean;
  /** The evaluation time acknowledgements expire by; the clock by default. */
  now?: Date;
}

export interface StackEvaluation {
  findings: SynthFinding[];
  counts: EvaluationCounts;
}

/** Evaluate the whole stack at once: its resources as creations, vanished ones as destructions. */
export function evaluateStack(input: StackEvaluationInput): StackEvaluation {
  const current = new Map(input.resources.map((resource) => [resource.address, resource]));
  const changes: ResourceChange[] = [];
  for (const resource of current.values()) {
    changes.push(change(resource.address, resource.type, resource.name, 'create'));
  }
  const vanished = new Map<string, SynthesizedResource>();
  for (const resource of input.previous ?? []) {
    if (current.has(resource.address) || vanished.has(resource.address)) continue;
    if (input.movedFrom?.has(resource.address)) continue;
    vanished.set(resource.address, resource);
    changes.push(change(resource.address, resource.type, resource.name, 'delete'));
  }
  const plan: PlanInput = { format_version: '1.2', resource_changes: changes };
  const now = input.now ?? new Date();
  const evaluation = input.engine.evaluatePlan(input.data, plan, { now });

  const findings = evaluation.findings.map((finding): SynthFinding => {
    const constructPath =
      current.get(finding.address)?.constructPath ??
      vanished.get(finding.address)?.constructPath ??
      `${input.stackPath}/?`;
    const match = matchAcknowledgement(input.acknowledgements, { ...finding, constructPath }, now.getTime());
    // A plan acknowledgement from the service that a signed bundle carries holds here too.
    const ack = match.holding
      ? { reason: match.holding.reason, expiresAt: match.holding.expiresAt }
      : finding.acknowledgement
        ? { reason: finding.acknowledgement.reason, expiresAt: finding.acknowledgement.expires_at }
        : undefined;
    const synthFinding: SynthFinding = { ...finding, constructPath, outcome: outcome(finding, ack, input) };
    if (ack) {
      synthFinding.reason = ack.reason;
      if (ack.expiresAt !== undefined) synthFinding.expiresAt = ack.expiresAt;
    } else if (match.expired?.expiresAt !== undefined) {
      synthFinding.expiredAcknowledgement = {
        reason: match.expired.reason,
        expiresAt: match.expired.expiresAt,
      };
    }
    return synthFinding;
  });
  return { findings, counts: evaluation.counts };
}

function outcome(
  finding: EvalFinding,
  ack: unknown,
  input: Pick<StackEvaluationInput, 'minSeverity' | 'advisory'>,
): FindingOutcome {
  if (ack) return 'acknowledged';
  if (!severityAtLeast(finding.severity, input.minSeverity)) return 'below_threshold';
  return input.advisory ? 'advisory' : 'blocking';
}

function change(address: string, type: string, name: string, action: 'create' | 'delete'): ResourceChange {
  return { address, mode: 'managed', type, name, change: { actions: [action] } };
}
