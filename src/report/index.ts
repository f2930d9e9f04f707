// Stage 3: render a result. One file per format, behind a registry (registry.ts); renderers depend on the
// model only. This file only re-exports: nothing in src/report imports it, so it closes no cycle. The CLI's
// commands import targets.ts and formats.ts themselves, so renderers load only when a report is emitted.
export { colorEnabled } from './color.js';
export { REPORT_FORMATS, type ReportFormat } from './formats.js';
export { githubAnnotationsEnabled, renderGithubAnnotations } from './github.js';
export { renderReport } from './registry.js';
export { describeRule, RULES, type RuleDescription, type RuleInfo } from './rules.js';
export type {
  AnyReportSubject,
  EvaluationSubject,
  NoDecisionReport,
  ReportRenderOptions,
  ReportSubject,
  RootReport,
  RootsReport,
} from './subject.js';
export {
  emitReports,
  loadRenderers,
  parseReportFormat,
  type ReportTarget,
  reportTargets,
  reportTargetsFromSpecs,
} from './targets.js';
export { decisionLine, summaryLine } from './view.js';
