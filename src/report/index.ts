// Stage 3: render a result. One file per format, behind a registry; renderers depend on the model only.
import type { EvaluationResult, GateResult } from '../model/index.js';

export const REPORT_FORMATS = ['text', 'json', 'markdown', 'sarif', 'junit'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** What a report is about: a plan evaluation, or a gate decision. */
export type ReportSubject =
  | {
      kind: 'evaluation';
      result: EvaluationResult;
      /** Plan address -> construct path (CDKTF), shown beside addresses when present. */
      constructPaths?: ReadonlyMap<string, string>;
      /** True when the user asked for advisory mode: a block is reported but does not stop anything. */
      advisory?: boolean;
    }
  | { kind: 'gate'; result: GateResult; advisory?: boolean };

export interface ReportRenderOptions {
  color: boolean;
}

export interface Reporter {
  readonly format: ReportFormat;
  render(subject: ReportSubject, options: ReportRenderOptions): string;
}

export function renderReport(
  _subject: ReportSubject,
  _format: ReportFormat,
  _options: ReportRenderOptions,
): string {
  throw new Error('renderReport: not implemented yet');
}
