// One error family. The message says what went wrong; the hint says how to fix it. Printed once, at the top.

/** Exit codes are a stable, documented interface (README "Exit codes"). */
export const ExitCode = {
  ok: 0,
  /** Usage or internal error. */
  usage: 1,
  /** terraform itself failed. */
  terraform: 2,
  /** The gate or evaluation blocked. */
  blocked: 3,
  /** No decision could be reached (service unreachable, bundle invalid, plan unreadable): fail closed. */
  noDecision: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface TfgateErrorOptions {
  hint?: string;
  cause?: unknown;
  exitCode?: ExitCode;
  /** Extra structured detail (e.g. a byte offset or JSON path), shown in JSON output. */
  details?: Record<string, unknown>;
}

export class TfgateError extends Error {
  override readonly name: string = 'TfgateError';
  readonly code: string;
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, options: TfgateErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.exitCode = options.exitCode ?? ExitCode.usage;
    this.hint = options.hint;
    this.details = options.details;
  }
}

type FixedExitOptions = Omit<TfgateErrorOptions, 'exitCode'>;

/** A TfgateError whose exit code is fixed by its class: the class says what kind of failure it is. */
function withExitCode(name: string, exitCode: ExitCode) {
  return class extends TfgateError {
    override readonly name: string = name;
    constructor(code: string, message: string, options: FixedExitOptions = {}) {
      super(code, message, { ...options, exitCode });
    }
  };
}

/** Bad flags, environment, or configuration files. */
export class UsageError extends withExitCode('UsageError', ExitCode.usage) {}

/** A bundle that is unsigned, tampered, or signed by another key. No decision can be made. */
export class BundleVerificationError extends withExitCode('BundleVerificationError', ExitCode.noDecision) {}

/** The service could not be reached or answered with something we cannot decide from. */
export class NoDecisionError extends withExitCode('NoDecisionError', ExitCode.noDecision) {}

/** terraform (or tofu) exited non-zero or produced something unusable. */
export class TerraformError extends withExitCode('TerraformError', ExitCode.terraform) {}

/** Input that is not a readable Terraform plan or state. No decision can be made. */
export class InvalidPlanError extends TfgateError {
  override readonly name: string = 'InvalidPlanError';
  constructor(message: string, options: FixedExitOptions = {}) {
    super('invalid_plan', message, { ...options, exitCode: ExitCode.noDecision });
  }
}

/**
 * A plan terraform saved although planning failed (`"errored": true`): its changes are partial, so it is
 * never evaluated. No decision (exit 4); the wrapper reports it as terraform's failure (exit 2).
 */
export class IncompletePlanError extends InvalidPlanError {}

/**
 * A state document that holds no state: `terraform show -json` where there is none prints only
 * `{"format_version":"1.0"}`. Never read as "nothing exists" (no decision, exit 4; the service's 400
 * invalid_state). `tfgate state push` then asks `terraform state pull` whether a state exists at all.
 */
export class StateMissingError extends InvalidPlanError {}

/** The signals tfgate winds down from (terraform gets them forwarded); any other ends it at once. */
export type InterruptSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/**
 * A signal ended the command while no terraform step ran (start-up, the evaluation, between steps): nothing
 * was applied and terraform holds no lock. The CLI then ends as the signal ends `check` and `gate` (killed by
 * it: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP); the exit code here, no decision, is what a library caller reads. A
 * signal during terraform plan or apply is terraform's own stop: a TerraformError "interrupted" (exit 2).
 */
export class InterruptedError extends TfgateError {
  override readonly name: string = 'InterruptedError';
  readonly signal: InterruptSignal;
  constructor(signal: InterruptSignal, message: string, options: FixedExitOptions = {}) {
    super('interrupted', message, { ...options, exitCode: ExitCode.noDecision });
    this.signal = signal;
  }
}

export function isTfgateError(error: unknown): error is TfgateError {
  return error instanceof TfgateError;
}

/**
 * The one mapping from an error to the process's exit code (src/cli/main.ts): a TfgateError carries its own;
 * anything else is a bug or an unexpected failure, reported as exit 1.
 */
export function exitCodeFor(error: unknown): ExitCode {
  return isTfgateError(error) ? error.exitCode : ExitCode.usage;
}

/** What a thrown value says: an Error's message, else the value as text (libraries throw strings). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Render an error for a human: message, then hint. Never includes secrets: messages are built to be safe. */
export function formatError(error: unknown): string {
  if (isTfgateError(error)) {
    return error.hint ? `error: ${error.message}\nhint: ${error.hint}` : `error: ${error.message}`;
  }
  const message = errorMessage(error);
  return `error: internal error: ${message}\nhint: this is a bug in tfgate; please report it with the command you ran.`;
}

export {
  ADVISORY_CONSEQUENCE,
  ADVISORY_FLAG,
  ADVISORY_PREFIX,
  type AdvisoryConsequence,
  type AdvisorySituation,
  advisoryNotice,
  advisoryReason,
} from './advisory.js';
