// Stage 3: render a result. One file per format, behind a registry; renderers depend on the model only.
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';
import type { ReportRenderOptions, ReportSubject } from './subject.js';
import { renderText } from './text.js';

export { colorEnabled } from './color.js';
export { githubAnnotationsEnabled, renderGithubAnnotations } from './github.js';
export { describeRule, RULES, type RuleDescription, type RuleInfo } from './rules.js';
export type { ReportRenderOptions, ReportSubject } from './subject.js';
export { decisionLine, summaryLine } from './view.js';

export const REPORT_FORMATS = ['text', 'json', 'markdown', 'sarif', 'junit'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

type Renderer = (subject: ReportSubject, options: ReportRenderOptions) => string;

/** The registry: format -> renderer. Adding a format is one row here and one file. */
const RENDERERS: Readonly<Record<ReportFormat, Renderer>> = {
  text: renderText,
  json: renderJson,
  markdown: renderMarkdown,
  sarif: renderSarif,
  junit: renderJunit,
};

export function renderReport(
  subject: ReportSubject,
  format: ReportFormat,
  options: ReportRenderOptions,
): string {
  return RENDERERS[format](subject, options);
}
export {
  emitReports,
  parseReportFormat,
  type ReportTarget,
  reportTargets,
  type WriteFailure,
  writeFileAtomic,
} from './targets.js';
