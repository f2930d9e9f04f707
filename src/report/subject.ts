import type {
  Acknowledgement,
  CombinedDecision,
  EvaluationResult,
  GateResult,
  Severity,
  SourceLocation,
} from '../model/index.js';

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
      /**
       * Without a fallback file: the repository-relative directory of the configuration (or the root), on which
       * unplaced results are put as a whole (a region-less location).
       */
      fallbackDirectory?: string;
      /** Finding id -> the approval that lets it through (`check --approved-findings`): never blocks. */
      approvals?: ReadonlyMap<string, Acknowledgement>;
      /** True when the user asked for advisory mode: a block is reported but does not stop anything. */
      advisory?: boolean;
      /** How advisory mode was asked for, as the report names it (absent: --advisory). */
      advisoryGivenAs?: string;
      /** Set when the service decided (by status) but sent no details tfgate could read: says why. */
      detailsUnavailable?: string;
    }
  | {
      kind: 'gate';
      result: GateResult;
      advisory?: boolean;
      advisoryGivenAs?: string;
      detailsUnavailable?: string;
      /** The package's design file in the repository (`gate --design`): drift findings have no line of their own. */
      fallbackFile?: string;
    };

/** One plan evaluation's subject. */
export type EvaluationSubject = Extract<ReportSubject, { kind: 'evaluation' }>;

/** One root of a many-plan check: its evaluation, or why it has none. */
export interface RootReport {
  /** The root's name in reports: the plan's directory, or the mapping's `root`. */
  root: string;
  /** The plan as given (a path, or "stdin"). */
  plan: string;
  /** The package the root is judged against, when the route names it. */
  packageId?: string;
  /** Set when the root was decided. */
  subject?: EvaluationSubject;
  /** Set when no decision could be reached for this root: the error's code, message and hint. */
  noDecision?: { code: string; message: string; hint?: string };
  /**
   * A repository-relative path standing for the root when a finding has no file of its own and the plan file
   * is outside the repository: the root's directory (code scanning needs an artifact for every result).
   */
  rootPath?: string;
}

/** Many plans under one verdict (`tfgate check` with several plans), grouped by root. */
export interface RootsReport {
  kind: 'roots';
  decision: CombinedDecision;
  minSeverity: Severity;
  roots: RootReport[];
  /** True when the user asked for advisory mode. */
  advisory?: boolean;
  /** How advisory mode was asked for, as the report names it (absent: --advisory). */
  advisoryGivenAs?: string;
}

/**
 * One plan, or one gate, for which no decision was reached: the report files say so, as a root without a
 * decision does among many plans, so that none keeps an earlier run's result.
 */
export interface NoDecisionReport {
  kind: 'no-decision';
  /** What was to be decided. */
  of: 'evaluation' | 'gate';
  /** The package, when the route names it. */
  packageId?: string;
  minSeverity: Severity;
  /** Why: the error's code, message and hint. */
  error: NonNullable<RootReport['noDecision']>;
  /** True when the user asked for advisory mode: the run went on without a decision. */
  advisory?: boolean;
  /** How advisory mode was asked for, as the report names it (absent: --advisory). */
  advisoryGivenAs?: string;
}

/** Anything a report can be about. */
export type AnyReportSubject = ReportSubject | RootsReport | NoDecisionReport;

export interface ReportRenderOptions {
  color: boolean;
}
