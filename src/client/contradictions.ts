// A body that matches the contract's shape can still answer another question than the one asked, give a
// decision its own findings contradict, or count other findings than it lists (the reports print the counts). Such an answer is no decision: these say what the contradiction is
// (completing "the service answered … but <contradiction>"), without quoting the body, or return undefined.
import { nounFor, plural } from '../errors/plural.js';
import {
  decide,
  type EvaluationResult,
  type GateResult,
  type Severity,
  severityAtLeast,
} from '../model/index.js';

interface Asked {
  packageId: string;
  minSeverity: Severity;
}

function questionContradiction(result: { package_id: string; min_severity: Severity }, asked: Asked) {
  if (result.package_id !== asked.packageId) return 'its body is about another package';
  if (result.min_severity !== asked.minSeverity) {
    return `its body judges at min severity "${result.min_severity}", not the "${asked.minSeverity}" asked`;
  }
  return undefined;
}

/**
 * The gate (interface §4.1, §3): a drift finding blocks when its status is open and its severity is at or
 * above the threshold; an acknowledged one never blocks. The status says it, not an `acknowledgement`
 * field: a finding whose acknowledgement expired keeps it and is open again. A pass lists nothing as blocking.
 */
export function gateContradiction(result: GateResult, asked: Asked): string | undefined {
  const question = questionContradiction(result, asked);
  if (question) return question;
  const { counts } = result;
  if (counts.blocking !== result.blocking.length || counts.acknowledged !== result.acknowledged.length) {
    return `its counts (${counts.blocking} blocking, ${counts.acknowledged} acknowledged) are not the findings it lists (${result.blocking.length} blocking, ${result.acknowledged.length} acknowledged)`;
  }
  if (counts.open < counts.blocking) {
    return `its counts say ${plural(counts.blocking, 'finding')} ${nounFor(counts.blocking, 'blocks', 'block')} but only ${counts.open} ${nounFor(counts.open, 'is', 'are')} open`;
  }
  const blocking = [...result.blocking, ...result.acknowledged].filter(
    (f) => f.status === 'open' && severityAtLeast(f.severity, asked.minSeverity),
  ).length;
  if (result.decision === 'pass' && (blocking > 0 || result.blocking.length > 0)) {
    const listed = Math.max(blocking, result.blocking.length);
    return `its body says "pass" while listing ${plural(listed, 'finding')} that ${nounFor(listed, 'blocks', 'block')} (open, at or above min severity "${asked.minSeverity}")`;
  }
  if (result.decision === 'block' && blocking === 0) {
    return `its body says "block" while none of its findings is open at or above min severity "${asked.minSeverity}"`;
  }
  return undefined;
}

/**
 * The evaluation: a finding blocks when no acknowledgement holds for it (a plan acknowledgement holding at
 * the decision time is carried on the finding; an expired one is not) and its severity is at or above the
 * threshold: the model's `decide`, as the policy and the service decide.
 */
export function evaluationContradiction(result: EvaluationResult, asked: Asked): string | undefined {
  const question = questionContradiction(result, asked);
  if (question) return question;
  if (result.counts.findings !== result.findings.length) {
    return `its counts say ${plural(result.counts.findings, 'finding')} but it lists ${result.findings.length}`;
  }
  if (result.decision === decide(result.findings, asked.minSeverity)) return undefined;
  const blocking = result.findings.filter(
    (f) => f.acknowledgement === undefined && severityAtLeast(f.severity, asked.minSeverity),
  ).length;
  return result.decision === 'pass'
    ? `its body says "pass" while ${plural(blocking, 'finding')} without an acknowledgement ${nounFor(blocking, 'is', 'are')} at or above min severity "${asked.minSeverity}"`
    : `its body says "block" while no finding without an acknowledgement is at or above min severity "${asked.minSeverity}"`;
}
