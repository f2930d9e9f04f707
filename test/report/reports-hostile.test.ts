// Addresses, kinds, messages and acknowledgements come from plans, state and users. The markdown report
// (a pull-request comment, a step summary) and the JUnit report (a CI test tab) show them as given and never
// as structure: checked on generated hostile text with the real parsers, GitHub's cmark-gfm and expat.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EvalFinding, GateResult } from '../../src/model/index.js';
import { renderReport } from '../../src/report/index.js';
import { terminalSafe } from '../../src/report/terminal-safe.js';
import { findingOutcome } from '../../src/service/core/run-task/decide.js';
import { renderWithRealParsers, type XmlElement } from '../helpers/github-markdown.js';
import { evaluation, gate } from './fixtures.js';

// Pieces that are markup somewhere: HTML, markdown inline and block syntax, table pipes, code fences,
// escapes, entities, mentions, GitHub Actions workflow commands after a line break, control and
// bidirectional characters, and characters XML 1.0 forbids.
const PIECES = [
  '<img src=x onerror=alert(1)>',
  '</td></tr></table>',
  '<details>',
  '|',
  '\\|',
  '\\',
  '`',
  '``',
  '*',
  '**',
  '_',
  '~~',
  '[x](y)',
  '![i](x)',
  '&amp;',
  '&#64;',
  '@octocat',
  '@org/team',
  '@-x.com',
  '#',
  '#123',
  'GH-7',
  'https://evil.example/p',
  'HTTP://',
  '://',
  'www.evil.example',
  'mailto:',
  'x.com',
  '> ',
  '- ',
  '1. ',
  '\n',
  '\r\n',
  '\r',
  '\n::error::forged',
  '\n::stop-commands::x',
  '\u001b[31m',
  '\u0000',
  '\u0007',
  '\u007f',
  '\u0085',
  '\u202e',
  '\u2066',
  '\u200f',
  '\ufeff',
  '\uffff',
  '\ufffe',
  '\t',
  ' ',
  '"',
  "'",
  'é',
  '😀',
  'a',
  'b',
  '.',
  ':',
  '=',
  '---',
];
/** One seed for every property here; a failure names it (replay with TFGATE_FUZZ_SEED=<seed>). */
const seed = process.env.TFGATE_FUZZ_SEED ? Number(process.env.TFGATE_FUZZ_SEED) : Date.now() % 2 ** 31;

const hostile = fc.array(fc.constantFrom(...PIECES), { maxLength: 10 }).map((parts) => parts.join(''));

const findingArb = fc.record({ address: hostile, kind: hostile, message: hostile });
const acknowledgedArb = fc.record({ address: hostile, by: hostile, account: hostile, reason: hostile });
const caseArb = fc.record({
  findings: fc.array(findingArb, { minLength: 1, maxLength: 3 }),
  acknowledged: fc.array(acknowledgedArb, { minLength: 1, maxLength: 2 }),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function findings(c: Case): EvalFinding[] {
  return c.findings.map((f, i) => ({
    id: `f-${i}`,
    rule: 'unsanctioned_creation',
    severity: 'high',
    address: f.address,
    type: 'aws_sqs_queue',
    kind: f.kind,
    actions: ['create'],
    message: f.message,
  }));
}

function gateResult(c: Case): GateResult {
  const base = gate();
  return {
    ...base,
    acknowledged: c.acknowledged.map((a, i) => ({
      ...base.acknowledged[0]!,
      id: `d-${i}`,
      address: a.address,
      acknowledgement: { by: a.by, account: a.account, at: '2025-01-01T00:00:00Z', reason: a.reason },
    })),
  };
}

function markdownOf(c: Case) {
  return {
    evaluation: renderReport(
      { kind: 'evaluation', result: evaluation({ findings: findings(c) }) },
      'markdown',
      { color: false },
    ),
    gate: renderReport({ kind: 'gate', result: gateResult(c) }, 'markdown', { color: false }),
  };
}

/** The same case with harmless text: the report's shape without anything hostile in it. */
const benign = (c: Case): Case => ({
  findings: c.findings.map(() => ({ address: 'x', kind: 'x', message: 'x' })),
  acknowledged: c.acknowledged.map(() => ({ address: 'x', by: 'x', account: 'x', reason: 'x' })),
});

const html = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** What a code cell shows for `text`: exactly the text, its control characters as visible escapes. */
const codeCell = (text: string) => (text === '' ? '' : `<code>${html(terminalSafe(text))}</code>`);

/**
 * What GitHub would link in text as given: an @mention or e-mail address, an issue reference (#1, GH-1).
 * The report keeps each from linking with a zero-width space after its "@", "#" or "GH-".
 */
const unreferenced = (text: string) =>
  text
    .replace(/@/g, '@\u200b')
    .replace(/#(?=\d)/g, '#\u200b')
    .replace(/\bGH-(?=\d)/gi, '$&\u200b');

/** What a prose cell shows: each line as given (escapes visible, nothing GitHub links), <br> between. */
const proseCell = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => html(unreferenced(terminalSafe(line))))
    .join('<br>')
    .replace(/^ +| +$/g, '');

const ALLOWED_TAGS = new Set(
  'h3 p strong table thead tbody tr th td code br details summary ul li blockquote'.split(' '),
);

/** The body rows of the n-th table, as cells. */
function tableRows(rendered: string, n: number): string[][] {
  const body = [...rendered.matchAll(/<tbody>\n([\s\S]*?)<\/tbody>/g)][n]?.[1] ?? '';
  return [...body.matchAll(/<tr>\n([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] as string).matchAll(/<td>(.*?)<\/td>\n/g)].map((cell) => cell[1] as string),
  );
}

describe('hostile text in the reports', () => {
  it('markdown, read by GitHub’s cmark-gfm: no markup, cell or line of its own; shown as given (fast-check; the seed is in the failure message)', async () => {
    const cases = fc.sample(caseArb, { seed, numRuns: 150 });
    const documents = cases.flatMap((c) => {
      const md = markdownOf(c);
      return [md.evaluation, md.gate].map((text) => ({ kind: 'markdown' as const, text }));
    });
    const rendered = (await renderWithRealParsers(documents)) as string[];
    cases.forEach((c, i) => {
      const why = `seed ${seed}, case ${i}: ${JSON.stringify(c)}`;
      const md = markdownOf(c);
      const plain = markdownOf(benign(c));
      // Every line is the report's own: as many as with harmless text, none a workflow command.
      expect(md.evaluation.split('\n').length, why).toBe(plain.evaluation.split('\n').length);
      expect(md.gate.split('\n').length, why).toBe(plain.gate.split('\n').length);
      expect(`${md.evaluation}\n${md.gate}`, why).not.toMatch(/^::/m);

      const evaluationHtml = rendered[2 * i] as string;
      const gateHtml = rendered[2 * i + 1] as string;
      for (const tag of `${evaluationHtml}${gateHtml}`.matchAll(/<\/?([a-zA-Z0-9]+)/g)) {
        expect(ALLOWED_TAGS.has(tag[1] as string), `${why}: <${tag[1]}>`).toBe(true);
      }
      expect(tableRows(evaluationHtml, 0), why).toEqual(
        c.findings.map((f) => [
          '⛔',
          '<code>unsanctioned_creation</code>',
          'high',
          codeCell(f.address),
          proseCell(f.kind),
          proseCell(f.message),
        ]),
      );
      expect(tableRows(gateHtml, 1), why).toEqual(
        c.acknowledged.map((a) => [
          '<code>unsanctioned_resource</code>',
          'high',
          codeCell(a.address),
          proseCell(`${a.by} (${a.account}), 2025-01-01T00:00:00Z`),
          proseCell(a.reason),
        ]),
      );
    });
  });

  it('JUnit XML, read by expat: well-formed, each address and message as given (escapes visible)', async () => {
    const cases = fc.sample(caseArb, { seed, numRuns: 150 });
    const documents = cases.map((c) => ({
      kind: 'xml' as const,
      text: renderReport({ kind: 'evaluation', result: evaluation({ findings: findings(c) }) }, 'junit', {
        color: false,
      }),
    }));
    const parsed = await renderWithRealParsers(documents);
    const shown = (text: string) =>
      terminalSafe(text).replace(/[\ufffe\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16)}`);
    cases.forEach((c, i) => {
      const why = `seed ${seed}, case ${i}: ${JSON.stringify(c)}`;
      const elements = parsed[i] as XmlElement[] | { error: string };
      expect(elements, why).toBeInstanceOf(Array);
      const failures = (elements as XmlElement[]).filter(([tag]) => tag === 'failure');
      const cases = (elements as XmlElement[]).filter(
        ([tag, attributes]) => tag === 'testcase' && attributes.classname === 'tfgate.unsanctioned_creation',
      );
      expect(
        cases.map(([, attributes]) => attributes.name),
        why,
      ).toEqual(c.findings.map((f) => shown(f.address)));
      expect(
        failures.map(([, attributes]) => attributes.message),
        why,
      ).toEqual(c.findings.map((f) => `high: ${shown(f.message)}`));
    });
  });

  it('an address of 200,000 backtick runs still renders (a fence one longer than the longest run)', () => {
    const address = 'a`'.repeat(200_000);
    const out = renderReport(
      {
        kind: 'evaluation',
        result: evaluation({
          findings: findings({ findings: [{ address, kind: 'k', message: 'm' }], acknowledged: [] }),
        }),
      },
      'markdown',
      { color: false },
    );
    expect(out).toContain(`| \`\` ${address} \`\` |`);
  });

  it('a root with no decision: its message is a paragraph led by "Reason:", never a heading or a quote', async () => {
    const message = '# PASS\n> all clear <img src=x> @octocat';
    const markdown = renderReport(
      {
        kind: 'roots',
        decision: 'no_decision',
        minSeverity: 'high',
        roots: [
          { root: 'network', plan: 'network/plan.json', noDecision: { code: 'invalid_plan', message } },
        ],
      },
      'markdown',
      { color: false },
    );
    const [rendered] = (await renderWithRealParsers([{ kind: 'markdown', text: markdown }])) as string[];
    expect(rendered).toContain('<p>Reason: # PASS<br>&gt; all clear &lt;img src=x&gt; @\u200boctocat</p>');
    expect(rendered).not.toMatch(/<h1|<blockquote|<img/);
  });

  it('a URL, www., an e-mail address, #123, GH-1 or @name in a Why, a Reason or a summary is text GitHub does not link (cmark-gfm with autolink)', async () => {
    const text =
      'see https://evil.example/x HTTP://evil.example www.evil.example (www.evil.example) ops@example.com x@-y.com mailto:a@b.co #123 GH-4 @octocat @org/team';
    const base = gate();
    const markdown = [
      renderReport(
        {
          kind: 'evaluation',
          result: evaluation({
            findings: findings({ findings: [{ address: 'a', kind: text, message: text }], acknowledged: [] }),
          }),
        },
        'markdown',
        { color: false },
      ),
      renderReport(
        {
          kind: 'gate',
          result: {
            ...base,
            acknowledged: [
              {
                ...base.acknowledged[0]!,
                acknowledgement: { by: text, account: 'a', at: '2025-01-01T00:00:00Z', reason: text },
              },
            ],
          },
        },
        'markdown',
        { color: false },
      ),
      renderReport(
        {
          kind: 'roots',
          decision: 'no_decision',
          minSeverity: 'high',
          roots: [
            { root: 'net', plan: 'net/plan.json', noDecision: { code: 'invalid_plan', message: text } },
            {
              root: 'ok',
              plan: 'ok/plan.json',
              subject: {
                kind: 'evaluation',
                result: evaluation({ package_id: text, findings: [], decision: 'pass' }),
              },
            },
          ],
        },
        'markdown',
        { color: false },
      ),
      findingOutcome(
        {
          ...findings({ findings: [{ address: 'a', kind: text, message: text }], acknowledged: [] })[0]!,
          capability: text,
        },
        'low',
      ).attributes.body ?? '',
    ];
    const rendered = (await renderWithRealParsers(
      markdown.map((md) => ({ kind: 'markdown' as const, text: md })),
    )) as string[];
    const shown = html(unreferenced(text));
    for (const [i, page] of rendered.entries()) {
      expect(page, `document ${i}`).not.toMatch(/<a\b/);
      // What GitHub's own filters link after cmark-gfm, outside code: mentions and issue references.
      expect(page.replace(/<code>.*?<\/code>/g, ''), `document ${i}`).not.toMatch(
        /@[A-Za-z0-9]|#\d|\bGH-\d/i,
      );
      expect(page, `document ${i}`).toContain(shown);
    }
    expect(tableRows(rendered[0]!, 0)[0]?.slice(4)).toEqual([shown, shown]);
    expect(tableRows(rendered[1]!, 1)[0]?.[4]).toBe(shown);
  });

  it('a passing root, folded in <details>: its name is text in the <summary>, never HTML of its own', async () => {
    const root = 'x</summary></details> <img src=https://evil.example/p.png> @octocat <details><summary>';
    const markdown = renderReport(
      {
        kind: 'roots',
        decision: 'pass',
        minSeverity: 'high',
        roots: [
          {
            root,
            plan: 'ok/plan.json',
            subject: { kind: 'evaluation', result: evaluation({ findings: [], decision: 'pass' }) },
          },
        ],
      },
      'markdown',
      { color: false },
    );
    const [rendered = ''] = (await renderWithRealParsers([{ kind: 'markdown', text: markdown }])) as string[];
    expect(rendered).not.toMatch(/<img/);
    expect(rendered.match(/<details>/g)).toHaveLength(1);
    expect(rendered.match(/<\/details>/g)).toHaveLength(1);
    expect(rendered).toContain(
      '<summary>✅ <code>x&lt;/summary&gt;&lt;/details&gt; &lt;img src=https://evil.example/p.png&gt; @\u200boctocat &lt;details&gt;&lt;summary&gt;</code>',
    );
  });

  it('an HCP Terraform run task outcome body (Markdown), read by cmark-gfm: no markup or list item of its own', async () => {
    const cases = fc.sample(caseArb, { seed, numRuns: 100 });
    const outcomes = cases.map((c, i) => {
      const [finding] = findings(c) as [EvalFinding];
      const [ack] = c.acknowledged as [Case['acknowledged'][number]];
      return findingOutcome(
        {
          ...finding,
          acknowledgement: {
            by: ack.by,
            account: ack.account,
            at: '2025-01-01T00:00:00Z',
            reason: ack.reason,
          },
        },
        i % 2 ? 'high' : 'low',
      );
    });
    const rendered = (await renderWithRealParsers(
      outcomes.map((o) => ({ kind: 'markdown' as const, text: o.attributes.body ?? '' })),
    )) as string[];
    cases.forEach((c, i) => {
      const why = `seed ${seed}, case ${i}: ${JSON.stringify(c)}`;
      const page = rendered[i] as string;
      for (const tag of page.matchAll(/<\/?([a-zA-Z0-9]+)/g)) {
        expect(['p', 'strong', 'ul', 'li', 'code'], `${why}: <${tag[1]}>`).toContain(tag[1]);
      }
      const items = [...page.matchAll(/<li>(.*?)<\/li>/g)].map((m) => m[1]);
      expect(items, why).toEqual(
        [
          'Rule: <code>unsanctioned_creation</code>',
          `Address: ${codeCell(c.findings[0]!.address)}`,
          `Kind: ${oneLine(c.findings[0]!.kind)}`,
          'Actions: create',
          `Acknowledged by ${oneLine(c.acknowledged[0]!.by)} at 2025-01-01T00:00:00Z: ${oneLine(c.acknowledged[0]!.reason)}`,
        ].map((item) => item.replace(/ +$/, '')),
      );
      // The plain-text description holds no control or bidirectional character: escaping it again changes nothing.
      const description = outcomes[i]!.attributes.description;
      expect(terminalSafe(description), why).toBe(description);
    });
  });
});

/** Prose on one line (a run task body): its line breaks shown as \u escapes too. */
const oneLine = (text: string) => html(unreferenced(terminalSafe(text)));
