// GitHub Actions workflow commands (::error title=…::…), added to a run when GITHUB_ACTIONS=true.
import type { ReportSubject } from './subject.js';
import { decisionLine, viewOf } from './view.js';

/** Escaping of workflow command data and properties (actions/toolkit, command.ts). */
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function githubAnnotationsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

export function renderGithubAnnotations(subject: ReportSubject): string {
  const view = viewOf(subject);
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
    lines.push(`::${level} ${where}title=${escapeProperty(title)}::${escapeData(`${r.address}: ${r.why}`)}`);
  }
  const summaryLevel = view.verdict === 'fail' ? 'error' : view.verdict === 'advisory' ? 'warning' : 'notice';
  lines.push(
    `::${summaryLevel} title=${escapeProperty(`tfgate ${view.label}`)}::${escapeData(decisionLine(view))}`,
  );
  return `${lines.join('\n')}\n`;
}
