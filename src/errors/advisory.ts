// Advisory mode's wording, in one place. Advisory mode has one meaning for check, gate, plan, apply and the
// CDKTF aspect: what would stop a pipeline (a block, or no decision at all) is said loudly and does not
// stop it. Every notice starts with ADVISORY MODE so a log search finds each one.

import { plural } from './plural.js';

export const ADVISORY_PREFIX = 'ADVISORY MODE';

/** What happens instead of failing, by who says it; advisoryNotice adds why (advisoryReason). */
export const ADVISORY_CONSEQUENCE = {
  /** check and the pipeline: the decision is reported, the exit is 0. */
  notEnforced: 'not enforced',
  /** gate: the release job goes on. */
  exitZero: 'exiting 0',
  /** plan and apply: terraform is not stopped. */
  terraformProceeds: 'terraform goes ahead anyway',
} as const;
export type AdvisoryConsequence = (typeof ADVISORY_CONSEQUENCE)[keyof typeof ADVISORY_CONSEQUENCE];

/** How advisory mode is asked for on the command line; what the notices name when nothing else is said. */
export const ADVISORY_FLAG = '--advisory';

/**
 * Why advisory mode is on, named as the user asked for it (`givenAs`): "because --advisory was given", or
 * "because TFGATE_ADVISORY=1 is set" when it came from the environment.
 */
export function advisoryReason(givenAs: string = ADVISORY_FLAG): string {
  return givenAs.startsWith('-') ? `because ${givenAs} was given` : `because ${givenAs} is set`;
}

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

/**
 * The one line advisory mode prints (no newline): `ADVISORY MODE: <situation>; <consequence> because <how
 * advisory mode was asked for>`.
 */
export function advisoryNotice(
  situation: AdvisorySituation,
  consequence: AdvisoryConsequence,
  givenAs?: string,
): string {
  return `${ADVISORY_PREFIX}: ${situationText(situation)}; ${consequence} ${advisoryReason(givenAs)}`;
}
