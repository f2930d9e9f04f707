import type { Acknowledgement, EvaluationResult, GateResult, SourceLocation } from '../model/index.js';

/** What a report is about: a plan evaluation, or a gate decision. */
export type ReportSubject =
  | {
      kind: 'evaluation';
      result: EvaluationResult;
      /** Plan address -> construct path (CDKTF), shown beside addresses when present. */
      constructPaths?: ReadonlyMap<string, string>;
      /** Plan address -> the file and line that declare it (src/locate), when the configuration was read. */
      locations?: ReadonlyMap<string, SourceLocation>;
      /**
       * A repository-relative file for findings that have no location of their own (the plan JSON file, when
       * it is in the repository): code scanning needs a file for every result.
       */
      fallbackFile?: string;
      /** Finding id -> the approval that lets it through (`check --approved-findings`): never blocks. */
      approvals?: ReadonlyMap<string, Acknowledgement>;
      /** True when the user asked for advisory mode: a block is reported but does not stop anything. */
      advisory?: boolean;
      /** Set when the service decided (by status) but sent no details tfgate could read: says why. */
      detailsUnavailable?: string;
    }
  | { kind: 'gate'; result: GateResult; advisory?: boolean; detailsUnavailable?: string };

export interface ReportRenderOptions {
  color: boolean;
}
