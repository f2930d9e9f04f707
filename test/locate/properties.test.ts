// Property tests of the block finders: generated configurations (blocks among comments, heredocs, strings
// and templates that look like blocks) are found on exactly their lines; arbitrary text is either read or
// refused with HclLexError, never anything else.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findHclBlocks, findJsonBlocks, HclLexError } from '../../src/locate/index.js';

/** Text that looks like a block but sits where no block can start. */
const decoy = 'resource "terraform_data" "decoy" {';
const noise = fc.constantFrom(
  `# ${decoy}`,
  `// ${decoy}`,
  `/* ${decoy}\n} */`,
  `locals {\n  x = <<-EOT\n    ${decoy}\n  EOT\n}`,
  `locals {\n  y = "}}{${'$'}{"{"}${'%'}{ if true }}${'%'}{ endif }"\n}`,
  `variable "v" {\n  default = {\n    a = "${'$'}${'$'}{"\n  }\n}`,
  '',
);
const label = fc.stringMatching(/^[a-z_][a-z0-9_-]{0,8}$/);
const block = fc.record({ type: label, name: label, body: noise });

describe('findHclBlocks on generated configurations', () => {
  it('finds each resource block on its line, and none of the decoys', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(noise, block), { maxLength: 8 }), (parts) => {
        const lines: string[] = [];
        const expected: Array<{ type: string; labels: string[]; line: number }> = [];
        for (const [before, b] of parts) {
          lines.push(...before.split('\n'));
          expected.push({ type: 'resource', labels: [b.type, b.name], line: lines.length + 1 });
          lines.push(`resource "${b.type}" "${b.name}" {`, ...b.body.split('\n').map((l) => `  ${l}`), '}');
        }
        const found = findHclBlocks(lines.join('\n'));
        expect(found.filter((f) => f.type === 'resource')).toEqual(expected);
        expect(found.some((f) => f.labels.includes('decoy'))).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('reads or refuses arbitrary text, never failing otherwise', () => {
    const alphabet = fc.constantFrom(
      ...'resource "a" {}[]()$%#/*\\<<-EOT\n \t='.split(''),
      'EOT',
      '${',
      '%{',
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 200 }), (chars) => {
        try {
          findHclBlocks(chars.join(''));
        } catch (error) {
          expect(error).toBeInstanceOf(HclLexError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('findJsonBlocks on generated JSON', () => {
  it('gives each resource the line of its key, whatever JSON sits around it', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(label, label, value), { maxLength: 5 }), (resources) => {
        const unique = new Map(resources.map(([t, n, v]) => [`${t}.${n}`, [t, n, v] as const]));
        const byType = new Map<string, Array<readonly [string, unknown]>>();
        for (const [t, n, v] of unique.values()) byType.set(t, [...(byType.get(t) ?? []), [n, v]]);
        const lines = ['{', '  "resource": {'];
        const expected: Array<{ type: string; labels: string[]; line: number }> = [];
        [...byType].forEach(([type, named], i) => {
          lines.push(`    ${JSON.stringify(type)}: {`);
          named.forEach(([name, v], j) => {
            expected.push({ type: 'resource', labels: [type, name], line: lines.length + 1 });
            lines.push(
              `      ${JSON.stringify(name)}: {"x": ${JSON.stringify(v)}}${j < named.length - 1 ? ',' : ''}`,
            );
          });
          lines.push(`    }${i < byType.size - 1 ? ',' : ''}`);
        });
        lines.push('  }', '}');
        expect(findJsonBlocks(lines.join('\n'), 1 << 20)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
