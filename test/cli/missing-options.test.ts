import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { explainMissingOptions } from '../../src/cli/missing-options.js';
import { type TfgateError, UsageError } from '../../src/errors/index.js';
import { parseOptions } from '../../src/errors/options.js';
import * as z from '../../src/schemas/zod.js';

function command(): Command {
  const program = new Command('tfgate');
  return program
    .command('findings')
    .command('ack')
    .option('--package <id>', 'the package (env TFGATE_PACKAGE)')
    .option('--reason <text>', 'why the finding may be accepted');
}

function missing(...flags: string[]): UsageError {
  return new UsageError('invalid_option', flags.map((f) => `${f}: is required`).join('; '), {
    details: { missing: flags },
  });
}

describe('a missing required flag in the command’s words', () => {
  it('names the command, the flag with its value and what it is for, with an example', () => {
    const explained = explainMissingOptions(missing('--reason'), command()) as TfgateError;
    expect(explained.message).toBe(
      'tfgate findings ack needs --reason <text>: why the finding may be accepted',
    );
    expect(explained.hint).toBe(
      'e.g. tfgate findings ack --reason <text> (tfgate findings ack --help lists every option)',
    );
    expect(explained.code).toBe('option_required');
    expect(explained.exitCode).toBe(1);
  });

  it('lists several missing flags one per line', () => {
    const explained = explainMissingOptions(missing('--package', '--reason'), command()) as TfgateError;
    expect(explained.message).toBe(
      'tfgate findings ack needs:\n  --package <id>: the package (env TFGATE_PACKAGE)\n  --reason <text>: why the finding may be accepted',
    );
  });

  it('leaves other errors, and flags the command does not document, as they were', () => {
    const other = new UsageError('invalid_option', '--status: must be one of: open');
    expect(explainMissingOptions(other, command())).toBe(other);
    const unknown = missing('--signing-key');
    expect(explainMissingOptions(unknown, command())).toBe(unknown);
    expect(explainMissingOptions(missing('--reason'), undefined)).toBeInstanceOf(UsageError);
  });

  it("points any other options error to the command's own --help, its message unchanged", () => {
    const invalid = refusal(
      z.object({ status: z.enum(['open', 'acked']) }),
      { status: 'closed' },
      '--status',
    );
    const explained = explainMissingOptions(invalid, command()) as TfgateError;
    expect(explained.message).toBe('--status: must be one of: open, acked');
    expect(explained.hint).toBe('tfgate findings ack --help lists every option');
    expect(explained.exitCode).toBe(1);
    // A missing flag the command does not document (an option of the CDKTF aspect) gets the same pointer.
    const undocumented = refusal(z.object({ status: z.string() }), {}, '--signing-key');
    expect((explainMissingOptions(undocumented, command()) as TfgateError).hint).toBe(
      'tfgate findings ack --help lists every option',
    );
  });
});

describe('a flag given with a value of the wrong type', () => {
  it('is said to be wrong, not missing ("--retries 1.5" once read "tfgate gate needs --retries <n>")', () => {
    const schema = z.object({ status: z.optional(z.coerce.number().check(z.int(), z.gte(0))) });
    for (const [value, message] of [
      ['1.5', '--retries: must be a whole number'],
      ['abc', '--retries: must be a number'],
    ] as const) {
      const error = refusal(schema, { status: value }, '--retries') as UsageError;
      expect(error.message).toBe(message);
      expect(error.details?.missing).toBeUndefined();
      expect((explainMissingOptions(error, command()) as TfgateError).message).toBe(message);
    }
    // Absent is still missing.
    const absent = refusal(z.object({ status: z.number() }), {}, '--retries') as UsageError;
    expect(absent.details?.missing).toEqual(['--retries']);
  });
});

/** What parseOptions throws for `input`, its one field written as `flag`. */
function refusal(schema: z.ZodMiniType, input: unknown, flag: string): unknown {
  try {
    parseOptions(schema, input, { status: flag });
  } catch (error) {
    return error;
  }
  throw new Error('expected parseOptions to refuse');
}
