// One plan, or one gate, without a decision, in every format: what a root without a decision is among many
// plans (roots.ts and its renderers), on its own. Written to the report files so none keeps an earlier run's
// result for a CI step to publish.
import { painter } from './color.js';
import { erroredSuite, junitDocument } from './junit.js';
import { cell, code } from './markdown.js';
import { sarifLog, sarifRules } from './sarif.js';
import type { NoDecisionReport, ReportRenderOptions } from './subject.js';
import { terminalSafe } from './terminal-safe.js';
import { DRIFT_RULE_SET, notEnforced, PLAN_RULE_SET } from './view.js';

const LABEL = { evaluation: 'plan evaluation', gate: 'gate' } as const;

/** The decision line: NO DECISION, or ADVISORY when the run went on without one. */
function decisionLine(report: NoDecisionReport): string {
  return report.advisory
    ? `ADVISORY: no decision (${report.error.message}); ${notEnforced(report.advisoryGivenAs)}`
    : `NO DECISION: ${report.error.message}`;
}

export function renderTextNoDecision(report: NoDecisionReport, options: ReportRenderOptions): string {
  const p = painter(options.color);
  const line = terminalSafe(decisionLine(report));
  const out = [report.advisory ? p.bold(p.yellow(line)) : p.bold(p.red(line))];
  if (report.error.hint) out.push(`Hint: ${terminalSafe(report.error.hint)}`);
  return `${out.join('\n')}\n`;
}

export function renderMarkdownNoDecision(report: NoDecisionReport): string {
  const of = report.packageId ? ` (package ${code(report.packageId)})` : '';
  const out = [
    `### ${report.advisory ? '⚠️' : '❌'} tfgate ${LABEL[report.of]}${of}: no decision`,
    '',
    // Led by our own word: a message starting with "#" or ">" must not become a heading or a quote.
    `Reason: ${cell(report.error.message)}${report.error.hint ? `<br>Hint: ${cell(report.error.hint)}` : ''}`,
    '',
  ];
  if (report.advisory) {
    out.push('> [!WARNING]', '> Advisory mode: nothing was decided, and nothing was stopped.', '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** As a root without a decision among many plans: `decision: "no_decision"` and the error. */
export function renderJsonNoDecision(report: NoDecisionReport): string {
  const body = {
    ...(report.packageId ? { package_id: report.packageId } : {}),
    decision: 'no_decision',
    min_severity: report.minSeverity,
    error: report.error,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** No results, and an invocation that did not succeed, with the reason as its error notification. */
export function renderSarifNoDecision(report: NoDecisionReport): string {
  return sarifLog({
    rules: sarifRules(report.of === 'gate' ? DRIFT_RULE_SET : PLAN_RULE_SET, report.of),
    results: [],
    automationId: `tfgate/${report.of}/${report.packageId ?? 'unknown'}/`,
    invocation: {
      executionSuccessful: false,
      toolExecutionNotifications: [
        { level: 'error', message: { text: `no decision: ${report.error.message}` } },
      ],
      properties: { decision: 'no_decision', min_severity: report.minSeverity },
    },
  });
}

/** One suite with one errored test case: a CI test tab shows the failure, never a missing suite. */
export function renderJunitNoDecision(report: NoDecisionReport): string {
  const suite = `tfgate ${LABEL[report.of]}${report.packageId ? ` ${report.packageId}` : ''}`;
  return junitDocument([
    erroredSuite(
      suite,
      { classname: `tfgate.${report.of}`, name: report.packageId ?? LABEL[report.of] },
      { message: report.error.message, type: report.error.code },
    ),
  ]);
}
