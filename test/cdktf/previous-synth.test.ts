// The aspect's JSON input (issue 8, defect 1): the previous synth (cdk.tf.json), from which it finds the
// resources a synth destroys, is read as the plan reader reads JSON: as JSON.parse reads it (escaped keys
// included), UTF-8 only, and bounded in size before it is read.
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as cdktf from 'cdktf';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyConformance, ConformanceAspect } from '../../src/cdktf/index.js';
import { MAX_SYNTHESIZED_BYTES } from '../../src/cdktf/synthesized-stack.js';
import { escapeKey } from '../plan/hostile.js';
import { parseJson } from '../plan/json-reference.js';
import { TEST_DESIGN, type TempDir, tempDir, thrown } from './helpers.js';

function synth(outdir: string, options: { ledger: boolean }) {
  const app = new cdktf.App({ outdir });
  const stack = new cdktf.TerraformStack(app, 'main');
  if (options.ledger) new cdktf.DataResource(stack, 'ledger', { input: { v: 1 } });
  new cdktf.DataResource(stack, 'index', { input: { v: 2 } });
  applyConformance(app, aspect);
  return () => app.synth();
}

let aspect: ConformanceAspect;
let out: TempDir;
beforeAll(async () => {
  aspect = await ConformanceAspect.fromDesign(TEST_DESIGN);
});
afterEach(() => out?.cleanup());

const stackFile = (dir: string) => join(dir, 'stacks', 'main', 'cdk.tf.json');

describe('the previous synth', () => {
  it('with its keys written as \\u escapes still shows the destroyed dependency', () => {
    out = tempDir('escaped-previous');
    synth(out.dir, { ledger: true })();
    const file = stackFile(out.dir);
    const text = readFileSync(file, 'utf8');
    const escaped = escapeKey(escapeKey(escapeKey(text, 'resource'), 'terraform_data'), 'ledger');
    expect(parseJson(escaped)).toEqual(JSON.parse(text));
    writeFileSync(file, escaped);
    const error = thrown(synth(out.dir, { ledger: false }));
    expect(error.message).toContain('capability_dependency_destroyed (critical)');
    expect(error.message).toContain('terraform_data.ledger');
  });

  it('is not read by JSON.parse, which on Node 24 and 26 can misread an escaped key (nodejs/node#63785)', () => {
    out = tempDir('v8-previous');
    synth(out.dir, { ledger: true })();
    const file = stackFile(out.dir);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"ledger":', '"ledge\\u0072":'));
    JSON.parse('{"h":[],"ledge\\\\":0}'); // an earlier parse leaves "ledge\\" in V8's key cache
    const error = thrown(synth(out.dir, { ledger: false }));
    expect(error.message).toContain('capability_dependency_destroyed (critical)');
  });

  it('larger than the cap is refused before it is read (it was read whole)', () => {
    out = tempDir('huge-previous');
    synth(out.dir, { ledger: true })();
    truncateSync(stackFile(out.dir), MAX_SYNTHESIZED_BYTES + 1); // sparse: nothing is written
    const error = thrown(synth(out.dir, { ledger: false }));
    expect(error.message).toContain(`cdk.tf.json is larger than ${MAX_SYNTHESIZED_BYTES} bytes`);
    expect(error).toMatchObject({ hint: expect.stringContaining('synthesize again') });
  });

  it('with invalid UTF-8 is refused, not read with replacement characters (it was)', () => {
    out = tempDir('latin1-previous');
    synth(out.dir, { ledger: true })();
    const file = stackFile(out.dir);
    const bytes = readFileSync(file);
    const at = bytes.indexOf('"ledger"') + 2;
    bytes[at] = 0xe9; // 'é' in Latin-1: not UTF-8
    writeFileSync(file, bytes);
    const error = thrown(synth(out.dir, { ledger: false }));
    expect(error.message).toMatch(
      /cdk\.tf\.json is not valid JSON: invalid UTF-8 inside a string .* at byte \d+/,
    );
  });
});
