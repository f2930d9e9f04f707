// Options validated by a zod schema, in plain words: a failure is one UsageError naming each offending flag
// or option, never the schema library's wording. In the errors layer so every layer (the CLI's normalisers,
// the CDKTF aspect's options) can use it.
import type * as z from '../schemas/zod.js';
import { UsageError } from './index.js';
import { plural } from './plural.js';

/** The hint of an options error whose caller gave none; the CLI names the command's --help instead. */
export const OPTIONS_HINT = 'run with --help to see the options';

/**
 * Validate options with a schema; a failure becomes one UsageError naming each offending flag.
 * `flagNames` maps an option path ("route.publicKey") to how the user wrote it ("--public-key").
 */
export function parseOptions<S extends z.ZodMiniType>(
  schema: S,
  input: unknown,
  flagNames: Readonly<Record<string, string>> = {},
  hint = OPTIONS_HINT,
): z.output<S> {
  // Our schemas' own messages win; zod's default wording never reaches the user.
  // reportInput: without it no issue carries its input, and every wrong type read as a missing flag.
  const parsed = schema.safeParse(input, { error: plainIssueMessage, reportInput: true });
  if (parsed.success) return parsed.data;
  const missing: string[] = [];
  const problems = parsed.error.issues.map((issue) => {
    const path = issue.path.join('.');
    // The longest named prefix: "scopes.0" is still --scopes.
    const named = issue.path
      .map((_, i) => issue.path.slice(0, issue.path.length - i).join('.'))
      .find((prefix) => flagNames[prefix] !== undefined);
    const flag = named !== undefined ? flagNames[named] : path === '' ? 'options' : path;
    if (issue.code === 'invalid_type' && issue.input === undefined && named !== undefined)
      missing.push(flag!);
    return `${flag}: ${issue.message}`;
  });
  // `missing` lets the CLI name the command and say what each missing flag is for (src/cli/main.ts).
  throw new UsageError('invalid_option', problems.join('; '), {
    hint,
    ...(missing.length > 0 ? { details: { missing } } : {}),
  });
}

type Issue = z.core.$ZodRawIssue;

/** A validation problem in plain words, for the issues our schemas leave to the library's default. */
export function plainIssueMessage(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${withArticle(issue.expected)}`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map(String).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1
          ? 'must not be empty'
          : `must be at least ${issue.minimum} characters`;
      // "--retries -1" is a number below its minimum, not a list with too few values.
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        return issue.inclusive === false
          ? `must be more than ${issue.minimum}`
          : `must be at least ${issue.minimum}`;
      return Number(issue.minimum) === 1
        ? 'needs at least one value'
        : `needs at least ${issue.minimum} values`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${plural(Number(issue.maximum), 'character')}`;
      return `must be at most ${issue.maximum}`;
    case 'unrecognized_keys':
      return `unknown option(s): ${issue.keys.join(', ')}`;
    default:
      return 'is not valid';
  }
}

/** "an array", "a string": zod's type names with their article. */
function withArticle(type: string): string {
  // zod says "int" for a whole number.
  if (type === 'int') return 'a whole number';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
