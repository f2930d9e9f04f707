// Counts in messages read as English: "1 finding", "2 findings" (not "1 findings" or "finding(s)").
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ADVISORY_CONSEQUENCE, advisoryNotice } from '../../src/errors/advisory.js';
import { parseOptions } from '../../src/errors/options.js';

const consequence = Object.values(ADVISORY_CONSEQUENCE)[0]!;

describe('singular and plural', () => {
  it('advisory mode counts findings', () => {
    const one = advisoryNotice({ kind: 'would-block', findings: 1, minSeverity: 'low' }, consequence);
    const two = advisoryNotice({ kind: 'would-block', findings: 2, minSeverity: 'low' }, consequence);
    expect(one).toContain('1 finding would block');
    expect(two).toContain('2 findings would block');
    expect(one + two).not.toContain('(s)');
  });

  it('a number below its minimum says so, not "needs at least 0 values"', () => {
    const schema = z.object({
      retries: z.coerce.number().check(z.int(), z.gte(0)),
      timeout: z.coerce.number().check(z.positive()),
    });
    expect(() => parseOptions(schema, { retries: '-1', timeout: '1' })).toThrow(
      /^retries: must be at least 0$/,
    );
    expect(() => parseOptions(schema, { retries: '1', timeout: '0' })).toThrow(
      /^timeout: must be more than 0$/,
    );
  });

  it('an option that needs values says how many', () => {
    expect(() =>
      parseOptions(z.object({ scopes: z.array(z.string()).check(z.minLength(1)) }), { scopes: [] }),
    ).toThrow(/scopes: needs at least one value$/);
  });
});
