// GitHub Actions workflow commands (::error title=…::…), added to a run when GITHUB_ACTIONS=true.
import { nounFor } from '../errors/plural.js';
import { SEVERITIES, type Severity } from '../model/index.js';
import { rootsDecisionLine, rootsViewOf } from './roots.js';
import type { AnyReportSubject, RootsReport } from './subject.js';
import { terminalSafeLines } from './terminal-safe.js';
import { decisionLine, type ReportView, viewOf } from './view.js';

/**
 * Escaping of workflow command data and properties (actions/toolkit, command.ts). A line break stays one
 * (%0A); any other control or bidirectional character, from a plan or a person, shows as its \u escape, as in
 * the text report: an annotation is read in the pull request and the log renders ANSI sequences.
 */
function escapeData(s: string): string {
  return terminalSafeLines(s).replace(/%/g, '%25').replace(/\n/g, '%0A');
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function githubAnnotationsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/**
 * GitHub shows 10 error, 10 warning and 10 notice annotations per step and drops the rest in the order printed
 * (actions/toolkit, docs/problem-matchers.md, "Limitations"). So the decision goes first, and past the budget
 * of a level its last slot says how many findings were left out: none is dropped without a word.
 */
export const ANNOTATIONS_PER_LEVEL = 10;

type Level = 'error' | 'warning' | 'notice';

interface Annotation {
  level: Level;
  /** The properties, escaped, each followed by a comma: `file=…,line=…,`. */
  where?: string;
  title: string;
  message: string;
  /** A finding's severity, to annotate the most severe first. */
  severity?: Severity;
}

export function renderGithubAnnotations(subject: AnyReportSubject): string {
  if (subject.kind === 'roots') return rootsAnnotations(subject);
  if (subject.kind === 'no-decision') {
    return `${line({ level: subject.advisory ? 'warning' : 'error', title: `tfgate ${subject.of === 'gate' ? 'gate' : 'plan evaluation'}: no decision`, message: subject.error.message })}\n`;
  }
  const view = viewOf(subject);
  const summary: Annotation = {
    level: levelOf(view.verdict),
    title: `tfgate ${view.label}`,
    message: decisionLine(view),
  };
  return withinBudget([summary], mostSevereFirst(findingAnnotations(view, '')));
}

/** Many plans: the combined decision and every root without a decision first, then the roots' findings. */
function rootsAnnotations(report: RootsReport): string {
  const v = rootsViewOf(report);
  const first: Annotation[] = [
    { level: levelOf(v.verdict), title: 'tfgate plan evaluation', message: rootsDecisionLine(v) },
  ];
  for (const root of v.roots) {
    if (!root.view) {
      first.push({
        level: 'error',
        title: `tfgate ${root.root}: no decision`,
        message: root.noDecision?.message ?? 'not evaluated',
      });
    }
  }
  return withinBudget(
    first,
    mostSevereFirst(
      v.roots.flatMap((root) => (root.view ? findingAnnotations(root.view, `${root.root}: `) : [])),
    ),
  );
}

function levelOf(verdict: ReportView['verdict']): Level {
  return verdict === 'fail' ? 'error' : verdict === 'advisory' ? 'warning' : 'notice';
}

/** `first` always (the decision), then the findings of each level while the level has room, then the counts left out. */
function withinBudget(first: readonly Annotation[], findings: readonly Annotation[]): string {
  const room: Record<Level, number> = {
    error: ANNOTATIONS_PER_LEVEL,
    warning: ANNOTATIONS_PER_LEVEL,
    notice: ANNOTATIONS_PER_LEVEL,
  };
  for (const a of first) room[a.level]--;
  const total: Record<Level, number> = { error: 0, warning: 0, notice: 0 };
  for (const a of findings) total[a.level]++;
  const lines = first.map(line);
  const shown: Record<Level, number> = { error: 0, warning: 0, notice: 0 };
  for (const a of findings) {
    // When a level's findings do not all fit, its last slot is kept for the line saying how many are left out.
    const fits = total[a.level] <= room[a.level] ? room[a.level] : room[a.level] - 1;
    if (shown[a.level] < fits) {
      shown[a.level]++;
      lines.push(line(a));
    }
  }
  for (const level of ['error', 'warning', 'notice'] as const) {
    const left = total[level] - shown[level];
    if (left > 0 && room[level] > 0) {
      lines.push(
        line({
          level,
          title: 'tfgate: more findings',
          message: `${left} more ${nounFor(left, 'finding')} of this level not annotated (GitHub shows ${ANNOTATIONS_PER_LEVEL} per level and step); the report lists every finding`,
        }),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Within the budget of a level, critical findings before high ones, and so on (a stable sort: the report's
 * order otherwise): 17 high creations listed first had left every critical destruction "not annotated".
 */
function mostSevereFirst(annotations: Annotation[]): Annotation[] {
  const rank = (a: Annotation) => -SEVERITIES.indexOf(a.severity ?? 'low');
  return annotations
    .map((a, i) => ({ a, i }))
    .sort((x, y) => rank(x.a) - rank(y.a) || x.i - y.i)
    .map(({ a }) => a);
}

function line(a: Annotation): string {
  return `::${a.level} ${a.where ?? ''}title=${escapeProperty(a.title)}::${escapeData(a.message)}`;
}

function findingAnnotations(view: ReportView, prefix: string): Annotation[] {
  const annotations: Annotation[] = [];
  for (const r of view.rows) {
    if (r.status === 'acknowledged') continue;
    // An advisory block warns; only an enforced block is an error.
    const level = r.blocking ? (view.verdict === 'advisory' ? 'warning' : 'error') : 'notice';
    // file= and line= attach the annotation to the declaration in the pull request's diff.
    const where = r.location
      ? `file=${escapeProperty(r.location.file)},line=${r.location.line},`
      : view.fallbackFile
        ? `file=${escapeProperty(view.fallbackFile)},`
        : '';
    annotations.push({
      level,
      where,
      title: `tfgate ${r.rule} (${r.severity})`,
      severity: r.severity,
      message: `${prefix}${r.address}: ${r.why}`,
    });
  }
  return annotations;
}
