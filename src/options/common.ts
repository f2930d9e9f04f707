// Option pieces shared by commands: severity, package id, reports (--format/--output), advisory, reading
// the environment, and turning a zod failure into a usage error that names the flag.
import { UsageError } from '../errors/index.js';
// Not report/index.js, which loads every renderer: a command loads them only to emit (targets.ts).
import { REPORT_FORMATS } from '../report/formats.js';
import { reportTargets, reportTargetsFromSpecs } from '../report/targets.js';
import { severitySchema } from '../schemas/findings.js';
import * as z from '../schemas/zod.js';

/** The contract's package id: `[a-z0-9][a-z0-9._-]{0,62}` (the design's PACKAGE_ID_PATTERN). */
export const packageIdSchema = z
  .string()
  .check(
    z.regex(
      /^[a-z0-9][a-z0-9._-]{0,62}$/,
      'a package id is 1-63 of a-z 0-9 . _ - and starts with a letter or digit',
    ),
  );

/** Where the service is, for the one-shot management commands (keys create, state push). */
export const serviceConnectionSchema = z.object({
  /** Falls back to TFGATE_BASE_URL. */
  baseUrl: z.optional(z.string()),
  /** Extra trusted CA certificates (PEM). */
  caFile: z.optional(z.string()),
});

/** The contract's default: `low`, so any finding blocks. */
export const minSeveritySchema = z._default(severitySchema, 'low');

export const reportFormatSchema = z.enum(REPORT_FORMATS);

/** One report: a format, written to `path` (atomically) or to stdout when path is absent. */
export const reportTargetSchema = z.object({
  format: reportFormatSchema,
  path: z.optional(z.string().check(z.minLength(1))),
});

/** At most one report may go to stdout, or they would interleave. */
export const reportTargetsSchema = z._default(
  z.array(reportTargetSchema).check(
    z.minLength(1),
    z.refine((targets) => targets.filter((t) => t.path === undefined).length <= 1, {
      message: 'only one report can go to stdout; give each other report a file (--report <format>=<file>)',
    }),
  ),
  // Checked inside the default: zod/mini's .check() on a default copies its definition and with it one
  // default value, which every parse would then share. The default ({format: text}) passes the check.
  [{ format: 'text' }],
);

/** Report findings but never block, saying so loudly. Errors still fail: advisory is not "ignore errors". */
export const advisorySchema = z._default(z.boolean(), false);

/**
 * How advisory mode was asked for, as its notices name it: `TFGATE_ADVISORY=1` when it came from the
 * environment; absent, `--advisory`.
 */
export const advisoryGivenAsSchema = z.optional(z.string().check(z.minLength(1)));

export { collect } from './collect.js';

/** `--report <format>=<file>` flags, or `--format` and `--output` (paired one to one), as report targets. */
export function reportTargetsFromFlags(
  formats: readonly string[] = [],
  outputs: readonly string[] = [],
  reports: readonly string[] = [],
) {
  if (reports.length === 0) return reportTargets(formats, outputs);
  if (formats.length > 0 || outputs.length > 0) {
    throw new UsageError('invalid_output', '--report cannot be combined with --format or --output', {
      hint: 'name every report with --report <format>=<file> (or --report <format> for stdout)',
    });
  }
  return reportTargetsFromSpecs(reports);
}

/** An environment value, or undefined when it is unset or empty (an empty variable means "not set"). */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** A boolean from the environment: 1/true/yes or 0/false/no (any case); anything else is a usage error. */
export function envBoolean(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new UsageError('invalid_environment', `${name}=${value} is not a boolean`, {
    hint: `set ${name} to true or false`,
  });
}

// Options are validated by parseOptions (src/errors/options.ts), shared with the CDKTF aspect.
export { parseOptions, plainIssueMessage } from '../errors/options.js';
