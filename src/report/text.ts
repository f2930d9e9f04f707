// Plain text for terminals, CI logs and Atlantis: decision line first, then a table, counts and fixes.
import type { JudgedState, Severity } from '../model/index.js';
import { type Painter, painter } from './color.js';
import { describeRule } from './rules.js';
import type { ReportRenderOptions, ReportSubject } from './subject.js';
import { terminalSafeView } from './terminal-safe.js';
import { decisionLine, type FindingRow, locationText, type ReportView, viewOf } from './view.js';

const COLUMNS = ['RULE', 'SEVERITY', 'ADDRESS', 'KIND', 'WHY'] as const;
/** With source locations: a LOCATION column after the address. */
const LOCATED_COLUMNS = ['RULE', 'SEVERITY', 'ADDRESS', 'LOCATION', 'KIND', 'WHY'] as const;

function severityPaint(p: Painter, severity: Severity, text: string): string {
  if (severity === 'critical') return p.bold(p.red(text));
  if (severity === 'high') return p.red(text);
  if (severity === 'medium') return p.yellow(text);
  return text;
}

const MAX_PADDED_WIDTH = 80;

function table(rows: FindingRow[], p: Painter): string[] {
  const located = rows.some((r) => r.location);
  const columns: readonly string[] = located ? LOCATED_COLUMNS : COLUMNS;
  const cells = rows.map((r) => [
    r.rule,
    r.severity,
    r.constructPath ? `${r.address} (${r.constructPath})` : r.address,
    ...(located ? [r.location ? locationText(r.location) : '-'] : []),
    r.kind || '-',
    r.why,
  ]);
  // The last column is not padded: long messages wrap in the terminal instead of widening every line. Nor is
  // any column past MAX_PADDED_WIDTH: a longer cell (a 1 MB address in a hostile plan) overflows its column
  // rather than padding every other line to its length.
  const widths = columns.map((h, i) => {
    let width = h.length;
    for (const c of cells) width = Math.max(width, Math.min((c[i] ?? '').length, MAX_PADDED_WIDTH));
    return width;
  });
  const line = (c: readonly string[], paint: (i: number, s: string) => string = (_i, s) => s) =>
    c
      .map((cell, i) => (i === c.length - 1 ? paint(i, cell) : paint(i, cell.padEnd(widths[i] ?? 0))))
      .join('  ')
      .trimEnd();
  return [
    p.bold(line(columns)),
    ...cells.map((c, n) =>
      line(c, (i, s) => (i === 1 ? severityPaint(p, rows[n]?.severity ?? 'low', s) : s)),
    ),
  ];
}

function headline(view: ReportView, p: Painter): string {
  return paintVerdict(view.verdict, decisionLine(view), p);
}

/** A decision line in its verdict's colour: red for fail, yellow for advisory, green for pass. */
export function paintVerdict(verdict: ReportView['verdict'], text: string, p: Painter): string {
  if (verdict === 'fail') return p.bold(p.red(text));
  if (verdict === 'advisory') return p.bold(p.yellow(text));
  return p.green(text);
}

export function renderText(subject: ReportSubject, options: ReportRenderOptions): string {
  return `${textLines(terminalSafeView(viewOf(subject)), painter(options.color)).join('\n')}\n`;
}

/** The text report of one view (already terminal-safe), as lines: the decision line first. */
export function textLines(view: ReportView, p: Painter): string[] {
  const out: string[] = [headline(view, p)];

  const open = view.rows.filter((r) => r.status !== 'acknowledged');
  if (open.length > 0) {
    out.push('', view.subjectKind === 'gate' ? 'Blocking drift findings:' : 'Findings (* = blocking):');
    const [header, ...lines] = table(open, p);
    out.push(`  ${header}`);
    // One push per line: spreading 150,000 findings into one call overflows the stack.
    for (const [i, l] of lines.entries()) out.push(`${open[i]?.blocking ? '*' : ' '} ${l}`);
  }

  const acknowledged = view.rows.filter((r) => r.status === 'acknowledged');
  if (acknowledged.length > 0) {
    out.push('', 'Acknowledged (never block; recorded for audit):');
    for (const r of acknowledged) {
      const ack = r.acknowledgement
        ? ` by ${r.acknowledgement.by} (${r.acknowledgement.account}) at ${r.acknowledgement.at}: ${r.acknowledgement.reason}${r.acknowledgement.expires_at ? ` (until ${r.acknowledgement.expires_at})` : ''}`
        : '';
      out.push(`  ${r.rule} ${r.severity} ${r.address}${ack}`);
    }
  }

  if (view.expiredAcknowledgements) {
    out.push('', 'Expired acknowledgements (their findings are open again):');
    for (const a of view.expiredAcknowledgements) {
      out.push(
        `  ${a.rule} ${a.address}: expired at ${a.expires_at} (by ${a.by} (${a.account}): ${a.reason})`,
      );
    }
  }

  out.push('', `Counts: ${view.counts.map(([label, n]) => `${n} ${label}`).join(', ')}.`);
  if (view.subjectKind === 'gate') {
    const checked = view.driftCheckedAt
      ? `drift checked at ${view.driftCheckedAt}`
      : 'drift check time unknown';
    out.push(
      `Drift: ${checked}${view.refreshed ? ' (fresh check for this call)' : ' (the last check: --refresh checks now)'}.`,
    );
    if (view.judgedState) out.push(`State judged: ${describeJudgedState(view.judgedState)}.`);
  }

  const rules = [...new Set(open.map((r) => r.rule))];
  if (rules.length > 0) {
    out.push('', 'How to fix:');
    for (const id of rules) {
      const rule = describeRule(id);
      out.push(`  ${id}: ${rule.title}. ${rule.remediation}`);
    }
  }
  return out;
}

/** "the pg state, serial 7, lineage …, read at …"; a fallback says which read failed and why. */
function describeJudgedState(state: JudgedState): string {
  if (state.source !== 'pushed') {
    return `the ${state.source} state read from its backend at ${state.read_at} (serial ${state.serial ?? '?'}, lineage ${state.lineage ?? '?'})`;
  }
  const pushed = `the snapshot pushed at ${state.read_at}`;
  return state.fallback_from
    ? `${pushed}, because reading the ${state.fallback_from} backend failed (the package's fallback): ${state.read_error ?? 'no reason given'}`
    : pushed;
}
