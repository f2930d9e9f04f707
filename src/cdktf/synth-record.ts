// The audit record the aspect writes into the synthesized stack, under `"//": {"tfgate": {"<package id>":
// ...}}` (Terraform ignores "//" keys): what was checked with which policy, and every non-blocking finding.
import type { EvaluationCounts, Severity } from '../model/index.js';
import type { TerraformStackLike } from './constructs.js';
import type { FindingOutcome, SynthFinding } from './evaluate-stack.js';

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
  expires_at?: string;
  /** The acknowledgement that had expired at synth, so the finding was not acknowledged. */
  expired_acknowledgement?: { reason: string; expires_at: string };
  outcome: FindingOutcome;
}

export interface RecordInput {
  packageId: string;
  policy: string;
  signed: boolean;
  advisory: boolean;
  minSeverity: Severity;
  counts: EvaluationCounts;
  findings: readonly SynthFinding[];
}

/** Every package's record per stack: several aspects (packages) may check one stack. */
const records = new WeakMap<TerraformStackLike, Record<string, ConformanceRecord>>();

export function conformanceRecord(input: RecordInput): ConformanceRecord {
  return {
    package_id: input.packageId,
    policy: input.policy,
    signed: input.signed,
    mode: input.advisory ? 'advisory' : 'enforce',
    min_severity: input.minSeverity,
    counts: input.counts,
    acknowledged: input.findings.filter((f) => f.outcome === 'acknowledged').map(audited),
    warnings: input.findings
      .filter((f) => f.outcome === 'advisory' || f.outcome === 'below_threshold')
      .map(audited),
  };
}

/** Write (or replace) this package's record in the stack's synthesized output. */
export function writeRecord(stack: TerraformStackLike, record: ConformanceRecord): void {
  const all = records.get(stack) ?? {};
  all[record.package_id] = record;
  records.set(stack, all);
  stack.addOverride('//.tfgate', all);
}

function audited(f: SynthFinding): AuditedFinding {
  return {
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
    ...(f.expiresAt === undefined ? {} : { expires_at: f.expiresAt }),
    ...(f.expiredAcknowledgement === undefined
      ? {}
      : {
          expired_acknowledgement: {
            reason: f.expiredAcknowledgement.reason,
            expires_at: f.expiredAcknowledgement.expiresAt,
          },
        }),
    outcome: f.outcome,
  };
}
