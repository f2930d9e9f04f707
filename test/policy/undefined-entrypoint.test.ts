// A policy.wasm (e.g. a bundle's) whose entrypoint yields nothing gives no decision, on the plan and drift
// paths alike: never an empty, passing result. The wasm is compiled by the real opa.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NoDecisionError } from '../../src/errors/index.js';
import { readTarGz } from '../../src/policy/bundle/tar.js';
import { compilePolicyData } from '../../src/policy/data.js';
import { PolicyEngine } from '../../src/policy/engine.js';
import { PAYMENTS_DESIGN } from './payments-design.js';

// Both entrypoints exist but are undefined unless the input says otherwise.
const REGO = `package tfgate.conformance

plan := {"findings": [], "counts": {}, "errors": []} if input.never
drift := {"findings": [], "errors": []} if input.never
`;

let dir: string;
let engine: PolicyEngine;
const data = compilePolicyData(PAYMENTS_DESIGN);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-undefined-'));
  await writeFile(join(dir, 'policy.rego'), REGO);
  await execa(
    'opa',
    [
      'build',
      '-t',
      'wasm',
      '-e',
      'tfgate/conformance/plan',
      '-e',
      'tfgate/conformance/drift',
      '-o',
      'out.tar.gz',
      'policy.rego',
    ],
    { cwd: dir },
  );
  const wasm = readTarGz(await readFile(join(dir, 'out.tar.gz'))).find(
    (e) => e.name === '/policy.wasm' || e.name === 'policy.wasm',
  );
  if (!wasm) throw new Error('opa build -t wasm produced no policy.wasm');
  engine = await PolicyEngine.load(wasm.data);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('an entrypoint with no result', () => {
  it('is no decision for a plan', () => {
    const evaluate = () => engine.evaluatePlan(data, { format_version: '1.2', resource_changes: [] });
    expect(evaluate).toThrow(NoDecisionError);
    expect(evaluate).toThrow(expect.objectContaining({ code: 'policy_undefined' }));
  });

  it('is no decision for drift', () => {
    const evaluate = () => engine.evaluateDrift(data, { format_version: '1.0', resources: [] });
    expect(evaluate).toThrow(expect.objectContaining({ code: 'policy_undefined' }));
  });
});
