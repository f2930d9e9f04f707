// GitHub Actions workflow commands (::error title=…::…), added to a run when GITHUB_ACTIONS=true.
import { rootsDecisionLine, rootsViewOf } from './roots.js';
import type { AnyReportSubject, RootsReport } from './subject.js';
import { terminalSafe } from './terminal-safe.js';
import { decisionLine, type ReportView, viewOf } from './view.js';

/**
 * Escaping of workflow command data and properties (actions/toolkit, command.ts). A line break stays one
 * (%0A); any other control or bidirectional character, from a plan or a person, shows as its \u escape, as in
 * the text report: an annotation is read in the pull request and the log renders ANSI sequences.
 */
function escapeData(s: string): string {
  return s.split(/\r?\n/).map(terminalSafe).join('\n').replace(/%/g, '%25').replace(/\n/g, '%0A');
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function githubAnnotationsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

export function renderGithubAnnotations(subject: AnyReportSubject): string {
  if (subject.kind === 'roots') return rootsAnnotations(subject);
  const view = viewOf(subject);
  const lines = findingAnnotations(view, '');
  const summaryLevel = view.verdict === 'fail' ? 'error' : view.verdict === 'advisory' ? 'warning' : 'notice';
  lines.push(
    `::${summaryLevel} title=${escapeProperty(`tfgate ${view.label}`)}::${escapeData(decisionLine(view))}`,
  );
  return `${lines.join('\n')}\n`;
}

/** Many plans: each root's findings (titled with the root), then the combined decision. */
function rootsAnnotations(report: RootsReport): string {
  const v = rootsViewOf(report);
  const lines = v.roots.flatMap((root) => (root.view ? findingAnnotations(root.view, `${root.root}: `) : []));
  for (const root of v.roots) {
    if (!root.view) {
      lines.push(
        `::error title=${escapeProperty(`tfgate ${root.root}: no decision`)}::${escapeData(root.noDecision?.message ?? 'not evaluated')}`,
      );
    }
  }
  const level = v.verdict === 'fail' ? 'error' : v.verdict === 'advisory' ? 'warning' : 'notice';
  lines.push(`::${level} title=tfgate plan evaluation::${escapeData(rootsDecisionLine(v))}`);
  return `${lines.join('\n')}\n`;
}

function findingAnnotations(view: ReportView, prefix: string): string[] {
  const lines: string[] = [];
  for (const r of view.rows) {
    if (r.status === 'acknowledged') continue;
    // An advisory block warns; only an enforced block is an error.
    const level = r.blocking ? (view.verdict === 'advisory' ? 'warning' : 'error') : 'notice';
    const title = `tfgate ${r.rule} (${r.severity})`;
    // file= and line= attach the annotation to the declaration in the pull request's diff.
    const where = r.location
      ? `file=${escapeProperty(r.location.file)},line=${r.location.line},`
      : view.fallbackFile
        ? `file=${escapeProperty(view.fallbackFile)},`
        : '';
    lines.push(
      `::${level} ${where}title=${escapeProperty(title)}::${escapeData(`${prefix}${r.address}: ${r.why}`)}`,
    );
  }
  return lines;
}
