// The registry of report formats: format -> renderer, for one subject and for many plans grouped by root.
// Adding a format is one row here and its files.
import type { ReportFormat } from './formats.js';
import { renderJson, renderJsonRoots } from './json.js';
import { renderJunit } from './junit.js';
import { renderJunitRoots } from './junit-roots.js';
import { renderMarkdown } from './markdown.js';
import { renderMarkdownRoots } from './markdown-roots.js';
import {
  renderJsonNoDecision,
  renderJunitNoDecision,
  renderMarkdownNoDecision,
  renderSarifNoDecision,
  renderTextNoDecision,
} from './no-decision.js';
import { renderSarif } from './sarif.js';
import { renderSarifRoots } from './sarif-roots.js';
import type {
  AnyReportSubject,
  NoDecisionReport,
  ReportRenderOptions,
  ReportSubject,
  RootsReport,
} from './subject.js';
import { renderText } from './text.js';
import { renderTextRoots } from './text-roots.js';

interface Renderers {
  one: (subject: ReportSubject, options: ReportRenderOptions) => string;
  roots: (report: RootsReport, options: ReportRenderOptions) => string;
  /** One plan or one gate without a decision. */
  none: (report: NoDecisionReport, options: ReportRenderOptions) => string;
}

const RENDERERS: Readonly<Record<ReportFormat, Renderers>> = {
  text: { one: renderText, roots: renderTextRoots, none: renderTextNoDecision },
  json: { one: renderJson, roots: renderJsonRoots, none: renderJsonNoDecision },
  markdown: { one: renderMarkdown, roots: renderMarkdownRoots, none: renderMarkdownNoDecision },
  sarif: { one: renderSarif, roots: renderSarifRoots, none: renderSarifNoDecision },
  junit: { one: renderJunit, roots: renderJunitRoots, none: renderJunitNoDecision },
};

export function renderReport(
  subject: AnyReportSubject,
  format: ReportFormat,
  options: ReportRenderOptions,
): string {
  const renderers = RENDERERS[format];
  if (subject.kind === 'roots') return renderers.roots(subject, options);
  if (subject.kind === 'no-decision') return renderers.none(subject, options);
  return renderers.one(subject, options);
}
