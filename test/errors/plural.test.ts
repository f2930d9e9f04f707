// Counts in messages read as English: "1 finding", "2 findings" (not "1 findings" or "finding(s)").
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ADVISORY_CONSEQUENCE, advisoryNotice } from '../../src/errors/advisory.js';
import { parseOptions } from '../../src/errors/options.js';
import { nounFor, plural } from '../../src/errors/plural.js';
import { renderReport } from '../../src/report/index.js';
import type { RootsReport } from '../../src/report/subject.js';
import { evaluation } from '../report/fixtures.js';

const consequence = Object.values(ADVISORY_CONSEQUENCE)[0]!;
const plain = { color: false };

describe('singular and plural', () => {
  it('the helper: one for exactly 1, else many (one + "s" unless given)', () => {
    expect([0, 1, 2].map((n) => plural(n, 'finding'))).toEqual(['0 findings', '1 finding', '2 findings']);
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
    expect(nounFor(1, 'root')).toBe('root');
  });

  it('advisory mode counts findings', () => {
    const one = advisoryNotice({ kind: 'would-block', findings: 1, minSeverity: 'low' }, consequence);
    const two = advisoryNotice({ kind: 'would-block', findings: 2, minSeverity: 'low' }, consequence);
    expect(one).toContain('1 finding would block');
    expect(two).toContain('2 findings would block');
    expect(one + two).not.toContain('(s)');
  });

  it("a report's counts agree with their numbers: 1 destruction, 1 finding (text and markdown)", () => {
    const [first] = evaluation().findings;
    const result = evaluation({
      findings: [first!],
      counts: {
        ...evaluation().counts,
        resource_changes: 1,
        creations: 1,
        destructions: 1,
        findings: 1,
      },
    });
    const text = renderReport({ kind: 'evaluation', result }, 'text', plain);
    expect(text).toContain(
      'Counts: 1 resource change, 1 creation, 1 destruction, 2 unrecognized, 1 finding.',
    );
    expect(text.split('\n')[0]).toContain('1 failure, 1 resource change evaluated');
    const markdown = renderReport({ kind: 'evaluation', result }, 'markdown', plain);
    expect(markdown).toContain('**1** destruction');
    expect(markdown).toContain('**1** finding');
    const many = renderReport({ kind: 'evaluation', result: evaluation() }, 'text', plain);
    expect(many).toContain(
      'Counts: 12 resource changes, 4 creations, 1 destruction, 2 unrecognized, 2 findings.',
    );
  });

  it('a many-plan markdown report of one root says "1 root"', () => {
    const report: RootsReport = {
      kind: 'roots',
      decision: 'block',
      minSeverity: 'high',
      roots: [
        {
          root: 'stacks/app',
          plan: 'stacks/app/plan.json',
          subject: { kind: 'evaluation', result: evaluation() },
        },
      ],
    };
    const markdown = renderReport(report, 'markdown', plain);
    expect(markdown).toContain('**1** root ·');
    expect(markdown).not.toContain('**1** roots');
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

  it('a text of at most one character says "1 character"', () => {
    expect(() => parseOptions(z.object({ flag: z.string().check(z.maxLength(1)) }), { flag: 'ab' })).toThrow(
      /^flag: must be at most 1 character$/,
    );
  });
});
