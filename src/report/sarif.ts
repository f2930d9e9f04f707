// SARIF 2.1.0 for code-scanning tools: rules from the rule table, one result per finding, located by address.
import type { Severity } from '../model/index.js';
import { describeRule } from './rules.js';
import type { ReportSubject } from './subject.js';
import { viewOf } from './view.js';

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** GitHub code scanning ranks security results by this 0–10 score. */
const SECURITY_SEVERITY: Record<Severity, string> = {
  low: '3.0',
  medium: '5.0',
  high: '8.0',
  critical: '9.5',
};

export function renderSarif(subject: ReportSubject): string {
  const view = viewOf(subject);
  const ruleIds = [...new Set([...view.ruleSet, ...view.rows.map((r) => r.rule)])];
  const rules = ruleIds.map((id) => {
    const rule = describeRule(id);
    return {
      id,
      name: id,
      shortDescription: { text: rule.title },
      fullDescription: { text: rule.description },
      help: { text: rule.remediation },
      defaultConfiguration: { level: 'error' },
      properties: {
        tags: ['tfgate', view.subjectKind === 'gate' ? 'drift' : 'terraform-plan'],
        ...(rule.severity ? { 'security-severity': SECURITY_SEVERITY[rule.severity] } : {}),
      },
    };
  });
  const results = view.rows.map((r) => ({
    ruleId: r.rule,
    ruleIndex: ruleIds.indexOf(r.rule),
    // Acknowledged and below-threshold findings are shown but do not fail a code-scanning check.
    level: r.blocking ? 'error' : r.status === 'acknowledged' ? 'note' : 'warning',
    message: { text: `${r.address}: ${r.why}` },
    locations: [
      {
        logicalLocations: [
          { name: r.address, fullyQualifiedName: r.address, kind: 'resource' },
          ...(r.constructPath ? [{ fullyQualifiedName: r.constructPath, kind: 'module' }] : []),
        ],
      },
    ],
    partialFingerprints: { tfgateFindingId: r.id },
    ...(r.status === 'acknowledged'
      ? {
          suppressions: [
            {
              kind: 'external',
              status: 'accepted',
              ...(r.acknowledgement ? { justification: r.acknowledgement.reason } : {}),
            },
          ],
        }
      : {}),
    properties: {
      severity: r.severity,
      kind: r.kind,
      type: r.type,
      package_id: view.packageId,
      ...(r.status ? { status: r.status } : {}),
    },
  }));
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'tfgate',
            informationUri: 'https://github.com/tfgate/tfgate',
            rules,
          },
        },
        automationDetails: { id: `tfgate/${view.subjectKind}/${view.packageId}/` },
        invocations: [
          {
            executionSuccessful: true,
            properties: {
              decision: view.decision,
              min_severity: view.minSeverity,
              ...(view.detailsUnavailable ? { details_available: false } : {}),
            },
          },
        ],
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
