// The options `tfgate plan` and `tfgate apply` share, and where their output goes.
import type { ExitCode } from '../../errors/index.js';
import type { PlanEvaluator } from '../../model/evaluator.js';
import type { EvaluationResult } from '../../model/index.js';
import {
  advisoryGivenAsSchema,
  advisorySchema,
  minSeveritySchema,
  reportTargetsSchema,
} from '../../options/common.js';
import * as z from '../../schemas/zod.js';
import { routeSchema } from '../route.js';
import type { ProgressReporter } from './progress.js';

/** Options shared by `tfgate plan` and `tfgate apply`, after the CLI has merged flags and environment. */
export const wrapperOptionsSchema = z.object({
  /** Who decides: the same routes as `tfgate check`. */
  route: routeSchema,
  /** terraform | tofu | a path; undefined falls back to TFGATE_TERRAFORM_BIN, then terraform. */
  terraformBin: z.optional(z.string().check(z.minLength(1))),
  /** tfgate's --chdir; `-chdir=` among the pass-through arguments is the other way to say it. */
  chdir: z.optional(z.string().check(z.minLength(1))),
  /**
   * A synthesized CDKTF stack: terraform runs in its directory (`<cdktf.json output>/stacks/<name>`) and the
   * report shows construct paths beside addresses. Not with --chdir.
   */
  cdktfStack: z.optional(z.string().check(z.minLength(1))),
  /** The reports' file locations are relative to this (default: the git work tree of the configuration). */
  repositoryRoot: z.optional(z.string().check(z.minLength(1))),
  /** Everything after `--`: terraform plan flags. */
  terraformArgs: z._default(z.array(z.string()), []),
  minSeverity: minSeveritySchema,
  /** Report findings and go ahead anyway, saying so loudly (also when no decision could be reached). */
  advisory: advisorySchema,
  advisoryGivenAs: advisoryGivenAsSchema,
  reports: reportTargetsSchema,
});
export type WrapperOptions = z.output<typeof wrapperOptionsSchema>;

/** Where output goes, and how progress is shown. */
export interface WrapperContext {
  progress: ProgressReporter;
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  /** Plain stderr, beside the progress: GitHub annotations when stdout holds a JSON, SARIF or JUnit report. */
  stderr?: { write(chunk: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Colour for reports on stdout and for terraform (false adds -no-color). */
  color: boolean;
  /** Colour for terraform's own output, which reaches our stdout and stderr (default: color). */
  terraformColor?: boolean;
  /** Overrides opening options.route (library callers with an evaluator of their own). */
  openEvaluator?: () => Promise<PlanEvaluator>;
  /** Where cdktf.json is looked for with --cdktf-stack (default: the current directory). */
  cdktfProjectDir?: string;
}

export type WrapperStatus = 'no-changes' | 'passed' | 'blocked' | 'advisory' | 'applied';

export interface WrapperResult {
  status: WrapperStatus;
  exitCode: ExitCode;
  evaluation?: EvaluationResult;
  /** `tfgate plan --out`: where the plan was kept, when it was. */
  planFile?: string;
}
