// The registry of report formats: format -> renderer, for one subject and for many plans grouped by root.
// Adding a format is one row here and its files.
import type { ReportFormat } from './formats.js';
import { renderJson, renderJsonRoots } from './json.js';
import { renderJunit } from './junit.js';
import { renderJunitRoots } from './junit-roots.js';
import { renderMarkdown } from './markdown.js';
import { renderMarkdownRoots } from './markdown-roots.js';
import { renderSarif } from './sarif.js';
import { renderSarifRoots } from './sarif-roots.js';
import type { AnyReportSubject, ReportRenderOptions, ReportSubject, RootsReport } from './subject.js';
import { renderText } from './text.js';
import { renderTextRoots } from './text-roots.js';

interface Renderers {
  one: (subject: ReportSubject, options: ReportRenderOptions) => string;
  roots: (report: RootsReport, options: ReportRenderOptions) => string;
}

const RENDERERS: Readonly<Record<ReportFormat, Renderers>> = {
  text: { one: renderText, roots: renderTextRoots },
  json: { one: renderJson, roots: renderJsonRoots },
  markdown: { one: renderMarkdown, roots: renderMarkdownRoots },
  sarif: { one: renderSarif, roots: renderSarifRoots },
  junit: { one: renderJunit, roots: renderJunitRoots },
};

export function renderReport(
  subject: AnyReportSubject,
  format: ReportFormat,
  options: ReportRenderOptions,
): string {
  const renderers = RENDERERS[format];
  return subject.kind === 'roots' ? renderers.roots(subject, options) : renderers.one(subject, options);
}
