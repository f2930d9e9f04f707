// Option pieces shared by commands: severity, package id, reports (--format/--output), advisory, reading
// the environment, and turning a zod failure into a usage error that names the flag.
import { z } from 'zod';
import { UsageError } from '../errors/index.js';
import { REPORT_FORMATS, reportTargets } from '../report/index.js';
import { severitySchema } from '../schemas/contract.js';

/** The contract's package id: `[a-z0-9][a-z0-9._-]{0,62}` (the design's PACKAGE_ID_PATTERN). */
export const packageIdSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,62}$/,
    'a package id is 1-63 of a-z 0-9 . _ - and starts with a letter or digit',
  );

/** Where the service is, for the one-shot management commands (keys create, state push). */
export const serviceConnectionSchema = z.object({
  /** Falls back to TFGATE_BASE_URL. */
  baseUrl: z.string().optional(),
  /** Extra trusted CA certificates (PEM). */
  caFile: z.string().optional(),
});

/** The contract's default: `low`, so any finding blocks. */
export const minSeveritySchema = severitySchema.default('low');

export const reportFormatSchema = z.enum(REPORT_FORMATS);

/** One report: a format, written to `path` (atomically) or to stdout when path is absent. */
export const reportTargetSchema = z.object({
  format: reportFormatSchema,
  path: z.string().min(1).optional(),
});

/** At most one report may go to stdout, or they would interleave. */
export const reportTargetsSchema = z
  .array(reportTargetSchema)
  .min(1)
  .default([{ format: 'text' }])
  .refine((targets) => targets.filter((t) => t.path === undefined).length <= 1, {
    message: 'only one report can go to stdout; give each other --format an --output <file>',
  });

/** Report findings but never block, saying so loudly. Errors still fail: advisory is not "ignore errors". */
export const advisorySchema = z.boolean().default(false);

/** Commander's collector for repeatable options (`--format a --format b`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--format` and `--output` flags (paired by position) as report targets. */
export function reportTargetsFromFlags(formats: readonly string[] = [], outputs: readonly string[] = []) {
  return reportTargets(formats, outputs);
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

/**
 * Validate options with a schema; a failure becomes one UsageError naming each offending flag.
 * `flagNames` maps an option path ("route.publicKey") to how the user wrote it ("--public-key").
 */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  input: unknown,
  flagNames: Readonly<Record<string, string>> = {},
  hint = 'run with --help to see the options',
): z.output<S> {
  // Our schemas' own messages win; zod's default wording never reaches the user.
  const parsed = schema.safeParse(input, { error: plainIssueMessage });
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const path = issue.path.join('.');
    // The longest named prefix: "scopes.0" is still --scopes.
    const named = issue.path
      .map((_, i) => issue.path.slice(0, issue.path.length - i).join('.'))
      .find((prefix) => flagNames[prefix] !== undefined);
    const flag = named !== undefined ? flagNames[named] : path === '' ? 'options' : path;
    return `${flag}: ${issue.message}`;
  });
  throw new UsageError('invalid_option', problems.join('; '), { hint });
}

type Issue = z.core.$ZodRawIssue;

/** A validation problem in plain words, for the issues our schemas leave to the library's default. */
export function plainIssueMessage(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be a ${issue.expected}`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map(String).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1
          ? 'must not be empty'
          : `must be at least ${issue.minimum} characters`;
      return `needs at least ${issue.minimum} value(s)`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      return `must be at most ${issue.maximum}`;
    case 'unrecognized_keys':
      return `unknown option(s): ${issue.keys.join(', ')}`;
    default:
      return 'is not valid';
  }
}
