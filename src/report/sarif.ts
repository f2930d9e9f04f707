// SARIF 2.1.0 for code-scanning tools: rules from the rule table, one result per finding, located by the file
// and line that declare its address (a repository-relative uri, as GitHub code scanning requires) and by the
// address itself.
import { packageVersion } from '../fs/package-version.js';
import type { Severity } from '../model/index.js';
import { describeRule } from './rules.js';
import type { ReportSubject } from './subject.js';
import { type FindingRow, type ReportView, viewOf } from './view.js';

/** Locations are relative to the repository root; consumers (GitHub: the checkout) resolve this base. */
const SOURCE_ROOT = '%SRCROOT%';

/** A repository-relative path as a relative URI reference: each segment percent-encoded, `/` kept. */
export function relativeUri(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/**
 * What a result without a declaration of its own is placed on (GitHub code scanning needs an artifact on every
 * result): a file (the plan JSON or plan file, in the repository) at line 1, or the root's directory, whole.
 */
export type FallbackArtifact = { file: string } | { directory: string };

/**
 * Where unplaced results go: the fallback file (line 1), else the fallback directory, else the repository root
 * itself. GitHub code scanning refuses a result without `artifactLocation.uri`, so there is always one.
 */
export function fallbackArtifact(file: string | undefined, directory: string | undefined): FallbackArtifact {
  if (file !== undefined) return { file };
  return { directory: directory ?? '.' };
}

/** The result's physical location: its declaration, else the fallback artifact, else none. */
function physicalLocation(row: FindingRow, fallback: FallbackArtifact | undefined) {
  const artifact = (uri: string) => ({ uri: relativeUri(uri), uriBaseId: SOURCE_ROOT });
  if (row.location) {
    return {
      physicalLocation: {
        artifactLocation: artifact(row.location.file),
        region: { startLine: row.location.line },
      },
    };
  }
  if (fallback === undefined) return {};
  if ('file' in fallback) {
    return { physicalLocation: { artifactLocation: artifact(fallback.file), region: { startLine: 1 } } };
  }
  // A directory has no lines: the location is the artifact alone (a trailing slash marks a directory).
  return { physicalLocation: { artifactLocation: artifact(`${fallback.directory.replace(/\/$/, '')}/`) } };
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
  const fallback = fallbackArtifact(view.fallbackFile, view.fallbackDirectory);
  const results = view.rows.map((r) => sarifResult(r, { ruleIds, packageId: view.packageId, fallback }));
  return sarifLog({
    rules: sarifRules(ruleIds, view.subjectKind),
    results,
    automationId: `tfgate/${view.subjectKind}/${view.packageId}/`,
    invocation: {
      executionSuccessful: true,
      properties: {
        decision: view.decision,
        min_severity: view.minSeverity,
        ...(view.detailsUnavailable ? { details_available: false } : {}),
      },
    },
  });
}

/** The rule table's entries for these rule ids. */
export function sarifRules(ruleIds: readonly string[], subjectKind: ReportView['subjectKind']) {
  return ruleIds.map((id) => {
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
        tags: ['tfgate', subjectKind === 'gate' ? 'drift' : 'terraform-plan'],
        ...(rule.severity ? { 'security-severity': SECURITY_SEVERITY[rule.severity] } : {}),
      },
    };
  });
}

export interface ResultContext {
  ruleIds: readonly string[];
  packageId: string;
  fallback: FallbackArtifact | undefined;
  /** Many plans: the root the finding belongs to (a logical location and a property). */
  root?: string;
}

/** One finding as a SARIF result, located by its declaration (else the fallback) and by its address. */
export function sarifResult(r: FindingRow, context: ResultContext) {
  return {
    ruleId: r.rule,
    ruleIndex: context.ruleIds.indexOf(r.rule),
    // Acknowledged and below-threshold findings are shown but do not fail a code-scanning check.
    level: r.blocking ? 'error' : r.status === 'acknowledged' ? 'note' : 'warning',
    message: { text: `${context.root === undefined ? '' : `${context.root}: `}${r.address}: ${r.why}` },
    locations: [
      {
        ...physicalLocation(r, context.fallback),
        logicalLocations: [
          { name: r.address, fullyQualifiedName: r.address, kind: 'resource' },
          ...(r.constructPath ? [{ fullyQualifiedName: r.constructPath, kind: 'module' }] : []),
        ],
      },
    ],
    // The root is part of the identity: the same address in two roots is two findings.
    partialFingerprints: { tfgateFindingId: context.root === undefined ? r.id : `${context.root}#${r.id}` },
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
      package_id: context.packageId,
      ...(context.root === undefined ? {} : { root: context.root }),
      ...(r.status ? { status: r.status } : {}),
    },
  };
}

type SarifResult = ReturnType<typeof sarifResult>;

/** The one-run log around rules and results, with the tool's name and version (SARIF2005). */
export function sarifLog(run: {
  rules: ReturnType<typeof sarifRules>;
  results: SarifResult[];
  automationId: string;
  invocation: Record<string, unknown>;
}): string {
  const version = packageVersion();
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'tfgate',
            informationUri: 'https://github.com/tfgate/tfgate',
            version,
            ...(/^\d+\.\d+\.\d+/.test(version) ? { semanticVersion: version } : {}),
            rules: run.rules,
          },
        },
        ...(run.results.some((r) => 'physicalLocation' in (r.locations[0] ?? {}))
          ? {
              originalUriBaseIds: {
                [SOURCE_ROOT]: {
                  description: { text: 'The root of the repository that holds the Terraform configuration.' },
                },
              },
            }
          : {}),
        automationDetails: { id: run.automationId },
        invocations: [run.invocation],
        results: run.results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
