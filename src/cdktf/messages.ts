// What the aspect says about a finding at synth time: one line naming the rule, severity, construct, type,
// kind, address and the design's rule, led by its outcome.
import { ADVISORY_PREFIX } from '../errors/advisory.js';
import type { Severity } from '../model/index.js';
import type { SynthFinding } from './evaluate-stack.js';

export interface MessageContext {
  packageId: string;
  minSeverity: Severity;
  sanctionedKinds: readonly string[];
}

export function findingMessage(finding: SynthFinding, context: MessageContext): string {
  const lead = {
    blocking: '[tfgate]',
    acknowledged: `[tfgate] acknowledged (reason: ${finding.reason ?? ''}${finding.expiresAt ? `; until ${finding.expiresAt}` : ''}):`,
    // A synth warning per finding, led like every advisory notice so one log search finds them all.
    advisory: `[tfgate] ${ADVISORY_PREFIX}, not blocking:`,
    below_threshold: `[tfgate] below min severity ${context.minSeverity}, not blocking:`,
  }[finding.outcome];
  const kinds = context.sanctionedKinds;
  const design =
    finding.rule === 'unsanctioned_creation'
      ? `the approved design of package ${context.packageId} sanctions only ${kinds.length ? kinds.join(', ') : 'no kinds'}`
      : `capability ${finding.capability ?? '?'} of package ${context.packageId} depends on it`;
  const subject =
    finding.rule === 'capability_dependency_destroyed'
      ? `${finding.type} ${finding.address} (construct ${finding.constructPath}, kind ${finding.kind}) was removed since the previous synth`
      : `${finding.type} ${finding.address} (construct ${finding.constructPath}) is of kind ${finding.kind}`;
  const expired = finding.expiredAcknowledgement
    ? ` Its acknowledgement (reason: ${finding.expiredAcknowledgement.reason}) expired at ${finding.expiredAcknowledgement.expiresAt}.`
    : '';
  const fix =
    finding.outcome === 'blocking'
      ? ` To proceed: change the code, get the design changed, or ConformanceAspect.acknowledge(construct, { rule: '${finding.rule}', reason }).`
      : '';
  // The policy's own message says the same in fewer words; it is kept in the audit record.
  return `${lead} ${finding.rule} (${finding.severity}): ${subject}; ${design}.${expired}${fix}`;
}

/** The stack-level messages: a stack added too late, the aspect not run, validation skipped, HCL output. */
export const stackMessages = {
  addedLate: (stack: string, packageId: string) =>
    `[tfgate] stack ${stack} was not checked against package ${packageId}: it was added after applyConformance(); call applyConformance(app, aspect) after defining every stack`,
  notRun: (packageId: string) =>
    `[tfgate] the conformance aspect for package ${packageId} did not run on this stack, so it was not checked; if the app bundles its own copy of the toolkit, pass it: applyConformance(app, aspect, { aspects: Aspects })`,
  validationSkipped: (stack: string, packageId: string) =>
    `[tfgate] skipValidation is set: stack ${stack} was not checked against package ${packageId}`,
  hclOutput: '[tfgate] destructions are not checked at synth time with HCL output (hclOutput)',
};
