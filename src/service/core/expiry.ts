// Acknowledgements that expire, judged at decision time: an acknowledged drift finding whose expiry has
// passed is open again, and the decision says which acknowledgement expired and when.
import { acknowledgementExpired, type DriftFinding, type ExpiredAcknowledgement } from '../../model/index.js';

export interface DriftAtDecision {
  /** The findings with the status they have at the decision time. */
  findings: DriftFinding[];
  /** Every acknowledgement among them that had expired. */
  expired: ExpiredAcknowledgement[];
  /** Findings the store still records as acknowledged although their acknowledgement expired. */
  newlyExpired: string[];
}

export function driftAtDecision(stored: readonly DriftFinding[], nowMs: number): DriftAtDecision {
  const findings: DriftFinding[] = [];
  const expired: ExpiredAcknowledgement[] = [];
  const newlyExpired: string[] = [];
  for (const finding of stored) {
    const ack = finding.acknowledgement;
    if (finding.status === 'resolved' || !ack || !acknowledgementExpired(ack.expires_at, nowMs)) {
      findings.push(finding);
      continue;
    }
    if (finding.status === 'acknowledged') newlyExpired.push(finding.id);
    findings.push({ ...finding, status: 'open' });
    expired.push({
      finding_id: finding.id,
      rule: finding.rule,
      address: finding.address,
      ...ack,
      expires_at: ack.expires_at!,
    });
  }
  return { findings, expired, newlyExpired };
}
