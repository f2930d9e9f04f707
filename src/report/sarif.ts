// SARIF 2.1.0 for code-scanning tools: rules from the rule table, one result per finding, located by the file
// and line that declare its address (a repository-relative uri, as GitHub code scanning requires) and by the
// address itself.
import type { Severity } from '../model/index.js';
import { describeRule } from './rules.js';
import type { ReportSubject } from './subject.js';
import { type FindingRow, viewOf } from './view.js';

/** Locations are relative to the repository root; consumers (GitHub: the checkout) resolve this base. */
const SOURCE_ROOT = '%SRCROOT%';

/** A repository-relative path as a relative URI reference: each segment percent-encoded, `/` kept. */
export function relativeUri(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** The result's physical location: its declaration, else the fallback file (line 1), else none. */
function physicalLocation(row: FindingRow, fallbackFile: string | undefined) {
  const file = row.location?.file ?? fallbackFile;
  if (file === undefined) return {};
  return {
    physicalLocation: {
      artifactLocation: { uri: relativeUri(file), uriBaseId: SOURCE_ROOT },
      region: { startLine: row.location?.line ?? 1 },
    },
  };
}

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
      // SARIF 3.49.7: a name differs from the id (the multitool's SARIF1001); PascalCase, as CodeQL's are.
      name: id.replace(/(^|_)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase()),
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
        ...physicalLocation(r, view.fallbackFile),
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
        ...(results.some((r) => 'physicalLocation' in (r.locations[0] ?? {}))
          ? {
              originalUriBaseIds: {
                [SOURCE_ROOT]: {
                  description: { text: 'The root of the repository that holds the Terraform configuration.' },
                },
              },
            }
          : {}),
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
