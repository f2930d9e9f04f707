import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { designSchema, formatPath, loadDesign, parseDesign } from '../../src/design/index.js';
import { lineNestedDeeperThan } from '../../src/design/nesting.js';
import { UsageError } from '../../src/errors/index.js';

const example = fileURLToPath(new URL('../../examples/designs/payments.yaml', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tfgate-design-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(text: string, source = 'design.yaml'): UsageError {
  try {
    parseDesign(text, source);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected parseDesign to throw');
}

const valid = `package_id: payments
name: Payments platform
sanctioned_kinds: [object_storage, queue, relational_database]
capabilities:
  - name: ledger
    depends_on: ["aws_db_instance.ledger", "module.queue.*"]
catalog:
  terraform_data: generic_data
`;

describe('parseDesign', () => {
  it("reads the contract's YAML example", () => {
    expect(parseDesign(valid, 'design.yaml')).toEqual({
      package_id: 'payments',
      name: 'Payments platform',
      sanctioned_kinds: ['object_storage', 'queue', 'relational_database'],
      capabilities: [{ name: 'ledger', depends_on: ['aws_db_instance.ledger', 'module.queue.*'] }],
      catalog: { terraform_data: 'generic_data' },
    });
  });

  it('reads JSON, and defaults capabilities and catalog to empty', () => {
    const design = parseDesign('{"package_id": "p.1_x-y", "sanctioned_kinds": []}', 'design.json');
    expect(design).toEqual({ package_id: 'p.1_x-y', sanctioned_kinds: [], capabilities: [], catalog: {} });
  });

  it('names the file, the field path and the line of a bad depends_on entry', () => {
    const text = `package_id: payments
sanctioned_kinds: [queue]
capabilities:
  - name: ledger
    depends_on: ["aws_db_instance.ledger"]
  - name: billing
    depends_on:
      - "aws db instance"
`;
    const error = errorOf(text);
    expect(error.message).toMatch(
      /^design\.yaml:8: capabilities\[1\]\.depends_on\[0\]: must be a resource address/,
    );
    expect(error.code).toBe('invalid_design');
    expect(error.details).toMatchObject({ field: 'capabilities[1].depends_on[0]', line: 8 });
    expect(error.exitCode).toBe(1);
  });

  it('refuses unknown fields, suggesting the one that was meant', () => {
    const text = `package_id: payments
sanctioned_kinds: [queue]
capabilities:
  - name: ledger
    depend_on: ["aws_db_instance.ledger"]
`;
    const error = errorOf(text);
    expect(error.message).toMatch(
      /^design\.yaml:5: capabilities\[0\]\.depend_on: unknown field \(did you mean "depends_on"\?\)/,
    );
    expect(errorOf('package_id: p\nsanctioned_kinds: []\nsanctioned: [queue]\n').message).toMatch(
      /^design\.yaml:3: sanctioned: unknown field/,
    );
  });

  it('checks package_id against the contract pattern', () => {
    for (const bad of ['Payments', '-payments', 'a'.repeat(64), 'pay ments', '']) {
      const error = errorOf(JSON.stringify({ package_id: bad, sanctioned_kinds: [] }), 'design.json');
      expect(error.message).toMatch(
        /^design\.json:1: package_id: must match \[a-z0-9\]\[a-z0-9._-\]\{0,62\}/,
      );
    }
    expect(
      parseDesign(JSON.stringify({ package_id: 'a'.repeat(63), sanctioned_kinds: [] }), 'd').package_id,
    ).toHaveLength(63);
  });

  it('says a required field is required, pointing at the document', () => {
    expect(errorOf('package_id: payments\n').message).toMatch(
      /^design\.yaml:1: sanctioned_kinds: is required/,
    );
  });

  it('refuses a misspelt kind, which would otherwise sanction nothing', () => {
    const error = errorOf('package_id: p\nsanctioned_kinds:\n  - queue\n  - object_storge\n');
    expect(error.message).toMatch(
      /^design\.yaml:4: sanctioned_kinds\[1\]: unknown kind "object_storge" \(did you mean "object_storage"\?\)/,
    );
  });

  it("accepts a kind that the design's own catalog introduces", () => {
    const design = parseDesign(
      'package_id: p\nsanctioned_kinds: [generic_data]\ncatalog: {terraform_data: generic_data}\n',
      'd',
    );
    expect(design.sanctioned_kinds).toEqual(['generic_data']);
  });

  it('refuses duplicate capability names', () => {
    const text =
      'package_id: p\nsanctioned_kinds: []\ncapabilities:\n  - {name: a, depends_on: []}\n  - {name: a, depends_on: []}\n';
    expect(errorOf(text).message).toMatch(
      /^design\.yaml:5: capabilities\[1\]\.name: duplicate capability name "a"/,
    );
  });

  it('refuses bad catalog entries', () => {
    expect(
      errorOf('package_id: p\nsanctioned_kinds: []\ncatalog:\n  terraform_data: Generic Data\n').message,
    ).toMatch(/^design\.yaml:4: catalog\.terraform_data: must be a kind name/);
  });

  it('reports YAML syntax errors with their line', () => {
    expect(errorOf('package_id: p\nsanctioned_kinds: [queue\ncapabilities: []\n').message).toMatch(
      /^design\.yaml:\d+: not valid YAML or JSON/,
    );
    expect(errorOf('package_id: p\npackage_id: q\nsanctioned_kinds: []\n').message).toMatch(
      /^design\.yaml:2: not valid YAML or JSON: a key is given twice in one mapping$/,
    );
  });

  it('refuses an empty document and a document that is not a mapping', () => {
    expect(errorOf('').message).toBe('design.yaml: the design is empty');
    expect(errorOf('- a\n- b\n').message).toMatch(/^design\.yaml:1: \(document\): /);
  });

  it('a value of the wrong type says which type, not "is required"', () => {
    expect(errorOf('package_id: p\nsanctioned_kinds: 5\n').message).toBe(
      'design.yaml:2: sanctioned_kinds: must be an array',
    );
    expect(errorOf('package_id: 7\nsanctioned_kinds: []\n').message).toBe(
      'design.yaml:1: package_id: must be a string',
    );
  });

  it('counts the further problems it does not show', () => {
    expect(errorOf('package_id: P\nsanctioned_kinds: 3\n').message).toMatch(/\(and 1 more problem\)$/);
  });

  it('called without a source name, says <design> where a file name would be, never undefined', () => {
    const unnamed = (text: unknown): UsageError => {
      try {
        (parseDesign as (text: unknown) => unknown)(text);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return error as UsageError;
      }
      throw new Error('expected parseDesign to throw');
    };
    const unknownField = unnamed('package_id: p\nsanctioned_kinds: []\nfoo: 1\n');
    expect(unknownField.message).toMatch(/^<design>:3: foo: unknown field/);
    expect(unknownField.details).toMatchObject({ source: '<design>', line: 3 });
    expect(unnamed('package_id: p\nsanctioned_kinds: [queue\n').message).toMatch(
      /^<design>:\d+: not valid YAML or JSON/,
    );
    expect(unnamed('').message).toBe('<design>: the design is empty');
    expect(parseDesign('package_id: p\nsanctioned_kinds: []\n').package_id).toBe('p');
  });

  it('given no text, says it takes the text and which function takes an object or a file', () => {
    for (const [value, shown] of [
      [undefined, 'undefined'],
      [null, 'null'],
      [{ package_id: 'p' }, 'a value of type object'],
    ] as const) {
      const error = errorOf(value as unknown as string);
      expect(error).toMatchObject({
        code: 'invalid_design',
        message: `design.yaml: parseDesign takes the design's text (YAML or JSON), not ${shown}`,
      });
      expect(error.hint).toMatch(/validateDesign\(object\).*loadDesign\(path\)/);
    }
  });
});

describe('loadDesign', () => {
  it('reads the example design', async () => {
    const design = await loadDesign(example);
    expect(design.package_id).toBe('payments');
    expect(design.catalog).toEqual({ terraform_data: 'generic_data' });
    expect(designSchema.parse(design)).toEqual(design);
  });

  it('names the file in its errors', async () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(path, 'package_id: payments\nsanctioned_kinds: [queue]\ntypo: 1\n');
    await expect(loadDesign(path)).rejects.toThrow(`${path}:3: typo: unknown field`);
    await expect(loadDesign(join(dir, 'missing.yaml'))).rejects.toMatchObject({ code: 'design_not_found' });
  });

  it('reads at most 1 MiB, even of an endless device, and refuses bytes that are not UTF-8', async () => {
    await expect(loadDesign('/dev/zero')).rejects.toMatchObject({
      code: 'design_too_large',
      message: 'the design file /dev/zero is larger than 1 MiB',
    });
    const latin1 = join(dir, 'latin1.yaml');
    writeFileSync(latin1, Buffer.from('package_id: caf\xe9\nsanctioned_kinds: []\n', 'latin1'));
    await expect(loadDesign(latin1)).rejects.toMatchObject({
      code: 'invalid_design',
      message: `${latin1}: the design is not UTF-8 text`,
    });
  });
});

describe('formatPath', () => {
  it('writes paths the way a reader would', () => {
    expect(formatPath(['capabilities', 1, 'depends_on', 0])).toBe('capabilities[1].depends_on[0]');
    expect(formatPath([])).toBe('');
  });
});

describe('nesting', () => {
  it('refuses a design nested past 64 levels in plain words, naming the line, before yaml can overflow the stack', () => {
    const flow = `package_id: deep\nname: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`;
    expect(errorOf(flow).message).toBe('design.yaml:2: the design nests deeper than 64 levels');
    const compact = `package_id: deep\nsanctioned_kinds: []\nname:\n  ${'- '.repeat(100_000)}x\n`;
    expect(errorOf(compact).message).toBe('design.yaml:4: the design nests deeper than 64 levels');
    let indented = 'package_id: deep\n';
    for (let level = 0; level < 70; level++) indented += `${' '.repeat(level)}k${level}:\n`;
    // k0 is a key of the top mapping (level 1), so line n + 2 holds k{n} at level n + 1: line 66, level 65.
    expect(errorOf(indented).code).toBe('invalid_design');
    expect(errorOf(indented).message).toBe('design.yaml:66: the design nests deeper than 64 levels');
    const json = `{"package_id":"deep","name":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    expect(errorOf(json, 'design.json').message).toBe(
      'design.json:1: the design nests deeper than 64 levels',
    );
  });

  it('counts lines through multi-line scalars', () => {
    const text = `package_id: deep\nname: "two\n  lines"\nnote: |\n  a\n  b\nx: ${'['.repeat(70)}${']'.repeat(70)}\n`;
    expect(lineNestedDeeperThan(text)).toBe(7);
  });

  it('never refuses what nests at most as deep as the limit, and always refuses what nests deeper (block and flow)', () => {
    const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('tree'), { maxLength: 3 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie('tree'), { maxKeys: 3 }),
      ),
    }));
    const depth = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depth)) : 0;
    fc.assert(
      fc.property(tree, fc.boolean(), (value, flowStyle) => {
        const text = stringify(value, flowStyle ? { collectionStyle: 'flow' } : {});
        const d = depth(value);
        expect(lineNestedDeeperThan(text, d), text).toBeUndefined();
        if (d > 0) expect(lineNestedDeeperThan(text, d - 1), text).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });
});
