// The registry of report formats: format -> renderer. Adding a format is one row here and one file.
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';
import type { ReportRenderOptions, ReportSubject } from './subject.js';
import { renderText } from './text.js';

export const REPORT_FORMATS = ['text', 'json', 'markdown', 'sarif', 'junit'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

type Renderer = (subject: ReportSubject, options: ReportRenderOptions) => string;

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
