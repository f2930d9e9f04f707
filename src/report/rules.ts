// The rule table: one place for what each rule means, shared by the text, markdown and SARIF reports.
import type { RuleId, Severity } from '../model/index.js';

export interface RuleDescription {
  readonly id: RuleId;
  /** A short title, one line. */
  readonly title: string;
  /** The severity the rule always produces (service contract, "Rules"). */
  readonly severity: Severity;
  /** What the rule checks, one sentence. */
  readonly description: string;
  /** How to clear a finding of this rule. */
  readonly remediation: string;
}

export const RULES: Readonly<Record<RuleId, RuleDescription>> = {
  unsanctioned_creation: {
    id: 'unsanctioned_creation',
    title: 'Creation of a kind the design does not sanction',
    severity: 'high',
    description: 'The plan creates a resource whose kind is not in the approved design’s sanctioned_kinds.',
    remediation:
      'Remove the resource from the change, or ask the platform team to add its kind to the design and approve it again.',
  },
  capability_dependency_destroyed: {
    id: 'capability_dependency_destroyed',
    title: 'Destruction of a resource an approved capability depends on',
    severity: 'critical',
    description: 'The plan deletes a resource listed in a capability’s depends_on.',
    remediation:
      'Keep the resource (check -replace, renames and moved blocks), or change the capability in the design and have it approved.',
  },
  unsanctioned_resource: {
    id: 'unsanctioned_resource',
    title: 'Observed resource of a kind the design does not sanction',
    severity: 'high',
    description: 'Observed state holds a managed resource whose kind is not in the approved design.',
    remediation:
      'Remove the resource, add its kind to the design and approve it, or acknowledge the finding with a reason.',
  },
  capability_dependency_missing: {
    id: 'capability_dependency_missing',
    title: 'A capability dependency is missing',
    severity: 'critical',
    description: 'No observed resource matches an address a capability depends on.',
    remediation:
      'Restore the resource, or correct the capability’s depends_on in the design and approve it again.',
  },
};

export interface RuleInfo {
  readonly id: string;
  readonly title: string;
  readonly severity?: Severity;
  readonly description: string;
  readonly remediation: string;
}

/** The description of a rule id, or a neutral one for a rule this version does not know (a newer service). */
export function describeRule(id: string): RuleInfo {
  const known: RuleInfo | undefined = (RULES as Readonly<Record<string, RuleDescription>>)[id];
  return known ?? { id, title: id, description: `Rule ${id}.`, remediation: 'See the finding message.' };
}
