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

export interface Reporter {
  readonly format: ReportFormat;
  /** The usual file extension, for messages and default names. */
  readonly extension: string;
  render(subject: ReportSubject, options: ReportRenderOptions): string;
}

/** The registry: format -> renderer. Adding a format is one row here and one file. */
const REPORTERS: Readonly<Record<ReportFormat, Reporter>> = {
  text: { format: 'text', extension: 'txt', render: renderText },
  json: { format: 'json', extension: 'json', render: (s) => renderJson(s) },
  markdown: { format: 'markdown', extension: 'md', render: (s) => renderMarkdown(s) },
  sarif: { format: 'sarif', extension: 'sarif', render: (s) => renderSarif(s) },
  junit: { format: 'junit', extension: 'xml', render: (s) => renderJunit(s) },
};

export function reporterFor(format: ReportFormat): Reporter {
  return REPORTERS[format];
}

export function renderReport(
  subject: ReportSubject,
  format: ReportFormat,
  options: ReportRenderOptions,
): string {
  return REPORTERS[format].render(subject, options);
}
export {
  emitReports,
  parseReportFormat,
  type ReportTarget,
  reportTargets,
  writeFileAtomic,
} from './targets.js';
