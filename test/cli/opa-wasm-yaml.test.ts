// The bundled CLI keeps opa-wasm's yaml.* builtins in their own file (dist/cli/opa-wasm-yaml.cjs), loaded on a
// policy's first yaml call (scripts/bundle-cli.mjs). tfgate's policy calls none; a bundle whose policy.wasm does
// (compiled here by the real opa) must still be evaluated with them, by the built CLI.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleBundle } from '../../src/policy/bundle/build.js';
import { readTarGz } from '../../src/policy/bundle/tar.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { generateTestKeys, STAND_IN_DATA } from '../policy/bundle-fixtures.js';

// yaml.marshal and yaml.unmarshal are JS builtins in opa-wasm: the wasm calls out to them. The policy reports
// their results as errors, which the CLI prints (no decision), so the test sees that they ran.
const YAML_REGO = `package tfgate.conformance

plan := {
  "findings": [],
  "counts": {c: 0 | some c in ["resource_changes", "creations", "destructions", "updates", "reads", "forgets", "imports", "no_ops", "unrecognized", "findings"]},
  "errors": [yaml.marshal({"shape": "round"}), json.marshal(yaml.unmarshal("size: 3"))],
}

drift := {"findings": [], "errors": []}
`;

const PLAN = JSON.stringify({ format_version: '1.2', resource_changes: [], planned_values: {} });

let dir: string;

beforeAll(async () => {
  await buildCli();
  dir = await mkdtemp(join(tmpdir(), 'tfgate-yaml-builtins-'));
  await mkdir(join(dir, 'tfgate'));
  await writeFile(join(dir, 'tfgate', 'conformance.rego'), YAML_REGO);
  const entrypoints = ['-e', 'tfgate/conformance/plan', '-e', 'tfgate/conformance/drift'];
  await execa('opa', ['build', '-t', 'wasm', ...entrypoints, '-o', 'out.tar.gz', 'tfgate'], { cwd: dir });
  const wasm = readTarGz(await readFile(join(dir, 'out.tar.gz'))).find((e) => e.name === 'policy.wasm');
  if (!wasm) throw new Error('opa build -t wasm produced no policy.wasm');
  const keys = generateTestKeys();
  const bundle = assembleBundle(
    {
      packageId: 'payments',
      data: STAND_IN_DATA,
      policy: {
        regoFiles: [{ name: 'tfgate/conformance.rego', source: Buffer.from(YAML_REGO) }],
        wasm: wasm.data,
      },
    },
    { signingKeyPem: keys.privatePem },
  );
  await writeFile(join(dir, 'bundle.tar.gz'), bundle);
  await writeFile(join(dir, 'public.pem'), keys.publicPem);
  await writeFile(join(dir, 'plan.json'), PLAN);
}, 120_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a bundle whose policy calls yaml builtins', () => {
  it('is evaluated by the built CLI with them, loaded on demand', async () => {
    const result = await runCli([
      'check',
      '--plan-json',
      join(dir, 'plan.json'),
      '--bundle',
      join(dir, 'bundle.tar.gz'),
      '--public-key',
      join(dir, 'public.pem'),
    ]);
    // The policy's errors are the builtins' output: marshalled YAML, and the unmarshalled object.
    expect(result.stderr).toContain('shape: round');
    expect(result.stderr).toContain('{"size":3}');
    expect(result.exitCode).toBe(4);
  });
});
