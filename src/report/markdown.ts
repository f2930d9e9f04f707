// Markdown for a pull-request comment: one summary line, a table, and the detail folded away.
import { describeRule } from './rules.js';
import type { ReportSubject } from './subject.js';
import { terminalSafe } from './terminal-safe.js';
import { decisionLine, type FindingRow, locationText, type ReportView, viewOf } from './view.js';

// Addresses, types, messages and reasons come from plans, state and users. In a pull-request comment they are
// shown as given, never as markup: no HTML, link, emphasis or table cell of their own, no autolinked URL,
// e-mail address, @mention or issue reference, and the control and bidirectional characters visible as \u
// escapes (as in the text report), so no line of the output is theirs (a line starting "::" on a GitHub
// Actions log is a workflow command).

/**
 * Keeps GitHub (and GitLab) from linking what only looks like a reference: an @mention, a team or an e-mail
 * address, and an issue reference (#123, GH-123). Their filters run on the rendered text, where a backslash
 * escape is already gone, so a zero-width space goes after the "@", "#" or "GH-" (after every "@": cmark-gfm
 * links "a@-b.com" too).
 */
function unreferenced(text: string): string {
  return text
    .replace(/@/g, '@\u200b')
    .replace(/#(?=\d)/g, '#\u200b')
    .replace(/\bGH-(?=\d)/gi, '$&\u200b');
}

/** Prose in a table cell or a heading: each line escaped, lines joined with <br>. */
export function cell(text: string): string {
  return text.split(/\r?\n/).map(inlineText).join('<br>');
}

/** Prose on one line: as cell(), with a line break shown as its \u escape (for Markdown that may allow no HTML). */
export function inlineText(text: string): string {
  return unreferenced(
    terminalSafe(text)
      .replace(/[\\`*_~[\]|]/g, '\\$&')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      // cmark-gfm's autolink extension (GitHub's) links a URL at the ":" of "http://", "https://" or "ftp://"
      // and a "www." at its "w"; an escaped ":" or "." triggers nothing, and GFM shows it without the backslash.
      .replace(/:(?=\/\/)/g, '\\:')
      .replace(/www\./gi, 'www\\.'),
  );
}

/**
 * Text inside an HTML block (the <details><summary> line of a passing root), which Markdown leaves unparsed
 * (so nothing in it is autolinked): HTML-escaped, not Markdown-escaped, and no @mention or issue reference. A code span there is literal backticks, not code.
 */
export function htmlText(text: string): string {
  return unreferenced(
    terminalSafe(text)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;'),
  );
}

/** A code span holding exactly `text` (its control characters visible): nothing in it is markup or a mention. */
export function code(text: string): string {
  if (text === '') return '';
  const safe = terminalSafe(text);
  // A fence longer than any run of backticks inside; a space pads content that starts or ends with a backtick
  // or with a space on both sides, since CommonMark strips one from each side.
  // (A loop, not Math.max(...runs): an address of 200,000 backtick runs would overflow the argument list.)
  let longest = 0;
  for (const run of safe.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = '`'.repeat(longest + 1);
  const pad = /^`|`$/.test(safe) || /^ .*[^ ].* $/s.test(safe) ? ' ' : '';
  return `${fence}${pad}${safe}${pad}${fence}`;
}

/** A code span in a table cell: a pipe inside would end the cell, so it is escaped (GFM removes the backslash). */
function codeCell(text: string): string {
  return code(text).replace(/\|/g, '\\|');
}

function row(r: FindingRow, withLocation: boolean): string {
  const address = r.constructPath
    ? `${codeCell(r.address)}<br>${cell(r.constructPath)}`
    : codeCell(r.address);
  const location = withLocation ? ` ${r.location ? codeCell(locationText(r.location)) : ''} |` : '';
  return `| ${r.blocking ? '⛔' : '⚠️'} | ${codeCell(r.rule)} | ${r.severity} | ${address} |${location} ${cell(r.kind)} | ${cell(r.why)} |`;
}

export function renderMarkdown(subject: ReportSubject): string {
  const view = viewOf(subject);
  const out: string[] = [
    `### ${verdictIcon(view.verdict)} tfgate ${view.label}: ${cell(decisionLine(view))}`,
    '',
  ];
  for (const line of markdownBody(view)) out.push(line);
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
    );
    // One push per row: spreading 150,000 findings into one call overflows the stack.
    for (const r of open) out.push(row(r, withLocation));
    out.push('');
  }
  const acknowledged = view.rows.filter((r) => r.status === 'acknowledged');
  if (acknowledged.length > 0) {
    out.push(
      `<details><summary>${acknowledged.length} acknowledged (never block)</summary>`,
      '',
      '| Rule | Severity | Address | Acknowledged by | Reason |',
      '|---|---|---|---|---|',
    );
    for (const r of acknowledged) {
      const by = r.acknowledgement
        ? `${r.acknowledgement.by} (${r.acknowledgement.account}), ${r.acknowledgement.at}`
        : '';
      out.push(
        `| ${codeCell(r.rule)} | ${r.severity} | ${codeCell(r.address)} | ${cell(by)} | ${cell(r.acknowledgement?.reason ?? '')} |`,
      );
    }
    out.push('', '</details>', '');
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
