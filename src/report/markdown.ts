// Markdown for a pull-request comment: one summary line, a table, and the detail folded away.
import { describeRule } from './rules.js';
import type { ReportSubject } from './subject.js';
import { decisionLine, type FindingRow, locationText, type ReportView, viewOf } from './view.js';

/** Escape what would break a table cell or start markup. */
export function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

export function code(text: string): string {
  return text === '' ? '' : `\`${text.replace(/`/g, "'")}\``;
}

function row(r: FindingRow, withLocation: boolean): string {
  const address = r.constructPath ? `${code(r.address)}<br>${cell(r.constructPath)}` : code(r.address);
  const location = withLocation ? ` ${r.location ? code(locationText(r.location)) : ''} |` : '';
  return `| ${r.blocking ? '⛔' : '⚠️'} | ${code(r.rule)} | ${r.severity} | ${address} |${location} ${cell(r.kind)} | ${cell(r.why)} |`;
}

export function renderMarkdown(subject: ReportSubject): string {
  const view = viewOf(subject);
  const out: string[] = [
    `### ${verdictIcon(view.verdict)} tfgate ${view.label}: ${cell(decisionLine(view))}`,
    '',
  ];
  out.push(...markdownBody(view));
  if (view.verdict === 'advisory') {
    out.push('> [!WARNING]', '> Advisory mode: this would have blocked, and nothing was stopped.', '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

export function verdictIcon(verdict: ReportView['verdict']): string {
  return verdict === 'pass' ? '✅' : verdict === 'fail' ? '❌' : '⚠️';
}

/** Everything under the heading: counts, the findings table, acknowledgements and the rules to fix. */
export function markdownBody(view: ReportView): string[] {
  const out: string[] = [];
  out.push(view.counts.map(([label, n]) => `**${n}** ${label}`).join(' · '), '');

  const open = view.rows.filter((r) => r.status !== 'acknowledged');
  if (open.length > 0) {
    // The Location column only when the configuration was read, so other reports stay as they were.
    const withLocation = open.some((r) => r.location);
    out.push(
      withLocation
        ? '| | Rule | Severity | Address | Location | Kind | Why |'
        : '| | Rule | Severity | Address | Kind | Why |',
      withLocation ? '|---|---|---|---|---|---|---|' : '|---|---|---|---|---|---|',
      ...open.map((r) => row(r, withLocation)),
      '',
    );
  }
  const acknowledged = view.rows.filter((r) => r.status === 'acknowledged');
  if (acknowledged.length > 0) {
    out.push(
      `<details><summary>${acknowledged.length} acknowledged (never block)</summary>`,
      '',
      '| Rule | Severity | Address | Acknowledged by | Reason |',
      '|---|---|---|---|---|',
      ...acknowledged.map(
        (r) =>
          `| ${code(r.rule)} | ${r.severity} | ${code(r.address)} | ${cell(r.acknowledgement ? `${r.acknowledgement.by} (${r.acknowledgement.account}), ${r.acknowledgement.at}` : '')} | ${cell(r.acknowledgement?.reason ?? '')} |`,
      ),
      '',
      '</details>',
      '',
    );
  }
  const rules = [...new Set(open.map((r) => r.rule))];
  if (rules.length > 0) {
    out.push('<details><summary>Rules and how to fix</summary>', '');
    for (const id of rules) {
      const rule = describeRule(id);
      out.push(`- ${code(id)}: **${cell(rule.title)}**. ${cell(rule.description)} ${cell(rule.remediation)}`);
    }
    out.push('', '</details>', '');
  }
  return out;
}
