// Advisory mode's wording, in one place. Advisory mode has one meaning for check, gate, plan, apply and the
// CDKTF aspect: what would stop a pipeline (a block, or no decision at all) is said loudly and does not
// stop it. Every notice starts with ADVISORY MODE so a log search finds each one.

import { plural } from './plural.js';

export const ADVISORY_PREFIX = 'ADVISORY MODE';

/** What happens instead of failing, by who says it. */
export const ADVISORY_CONSEQUENCE = {
  /** check and the pipeline: the decision is reported, the exit is 0. */
  notEnforced: 'not enforced because --advisory was given',
  /** gate: the release job goes on. */
  exitZero: 'exiting 0 because --advisory was given',
  /** plan and apply: terraform is not stopped. */
  terraformProceeds: 'terraform goes ahead anyway because --advisory was given',
  /** the CDKTF aspect: synth is not failed. */
  synthProceeds: 'synth goes on because the aspect was created with { advisory: true }',
} as const;
export type AdvisoryConsequence = (typeof ADVISORY_CONSEQUENCE)[keyof typeof ADVISORY_CONSEQUENCE];

/** What would have stopped the pipeline. */
export type AdvisorySituation =
  | { kind: 'no-decision'; reason: string }
  | { kind: 'would-block'; findings: number; minSeverity: string }
  | { kind: 'gate-would-block'; summary: string };

function situationText(situation: AdvisorySituation): string {
  switch (situation.kind) {
    case 'no-decision':
      return `no decision could be reached (${situation.reason})`;
    case 'would-block':
      return `${plural(situation.findings, 'finding')} would block at min severity ${situation.minSeverity}`;
    case 'gate-would-block':
      return `the gate WOULD HAVE BLOCKED this release (${situation.summary})`;
  }
}

/** The one line advisory mode prints (no newline): `ADVISORY MODE: <situation>; <consequence>`. */
export function advisoryNotice(situation: AdvisorySituation, consequence: AdvisoryConsequence): string {
  return `${ADVISORY_PREFIX}: ${situationText(situation)}; ${consequence}`;
}
