// Shared pieces of the CDKTF tests: both toolkits, a typed cloud resource (synth only, no provider
// download), the test design, and temporary output directories.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as cdktf from 'cdktf';
import * as cdktn from 'cdktn';
import type { Construct } from 'constructs';
import type { Design } from '../../src/design/index.js';

/** The part of the API the tests use is the same in both toolkits; cdktn is typed as cdktf for brevity. */
export type Toolkit = typeof cdktf;
export const TOOLKITS: ReadonlyArray<readonly [string, Toolkit]> = [
  ['cdktf', cdktf],
  ['cdktn', cdktn as unknown as Toolkit],
];

/** A typed resource class like a provider binding's, for a cloud type: it synthesizes but cannot plan here. */
export function cloudResource(tk: Toolkit, terraformResourceType: string) {
  return class CloudResource extends tk.TerraformResource {
    constructor(scope: Construct, id: string) {
      super(scope, id, { terraformResourceType });
    }
    protected override synthesizeAttributes(): Record<string, unknown> {
      return { name: this.node.id };
    }
  };
}

/** Sanctions terraform_data (as generic_data) and object storage; capability "ledger" depends on the ledger. */
export const TEST_DESIGN: Design = {
  package_id: 'cdktf-test',
  sanctioned_kinds: ['generic_data', 'object_storage'],
  capabilities: [{ name: 'ledger', depends_on: ['terraform_data.ledger'] }],
  catalog: { terraform_data: 'generic_data' },
};

export interface TempDir {
  dir: string;
  cleanup(): void;
}

export function tempDir(prefix: string): TempDir {
  const dir = mkdtempSync(join(tmpdir(), `tfgate-cdktf-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface SynthesizedJson {
  '//'?: { tfgate?: Record<string, ConformanceRecordJson>; metadata?: unknown };
  resource?: Record<string, Record<string, unknown>>;
  data?: Record<string, Record<string, unknown>>;
}

export interface ConformanceRecordJson {
  package_id: string;
  mode: string;
  signed: boolean;
  policy: string;
  counts: Record<string, number>;
  acknowledged: Array<Record<string, string>>;
  warnings: Array<Record<string, string>>;
}

export function readStackJson(outdir: string, stack: string): SynthesizedJson {
  return JSON.parse(readFileSync(join(outdir, 'stacks', stack, 'cdk.tf.json'), 'utf8')) as SynthesizedJson;
}

/** The "@cdktf/warn" annotations on a construct (what Annotations.of(x).addWarning writes). */
export function warningsOn(construct: Construct): string[] {
  return construct.node.metadata.filter((m) => m.type === '@cdktf/warn').map((m) => String(m.data));
}

/** Run `fn` and return the error it throws (fails the test when it does not throw). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, but none was thrown');
}
