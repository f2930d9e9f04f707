// Source locations for a CDKTF / CDK Terrain stack: synthesized by the real toolkit, planned by the real
// terraform in the stack's directory (as `tfgate apply --cdktf-stack` runs it), each address placed on its
// key in cdk.tf.json with the construct path recorded beside it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Construct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { locateAddresses } from '../../src/locate/index.js';
import { TOOLKITS, type Toolkit, tempDir } from '../cdktf/helpers.js';
import { lineOf } from '../helpers/locate.js';
import { TerraformWorkspace } from '../helpers/terraform.js';

function terraformData(tk: Toolkit) {
  return class TerraformData extends tk.TerraformResource {
    constructor(scope: Construct, id: string, count?: number) {
      super(scope, id, { terraformResourceType: 'terraform_data', ...(count ? { count } : {}) });
    }
    protected override synthesizeAttributes(): Record<string, unknown> {
      return { input: this.node.id };
    }
  };
}

describe.each(TOOLKITS)('a stack synthesized by %s', (_name, tk) => {
  it('places each planned address on its resource in cdk.tf.json, with its construct path', async () => {
    const out = tempDir('locate');
    try {
      const app = new tk.App({ outdir: out.dir });
      const stack = new tk.TerraformStack(app, 'payments');
      const Data = terraformData(tk);
      const storage = new Construct(stack, 'storage');
      new Data(storage, 'ledger');
      new Data(new Construct(storage, 'audit'), 'queue', 2);
      app.synth();
      const stackDir = join(out.dir, 'stacks', 'payments');
      const ws = TerraformWorkspace.create(stackDir);
      try {
        await ws.init();
        await ws.plan();
        const plan = JSON.parse(await ws.showPlanJson()) as { resource_changes: Array<{ address: string }> };
        const addresses = plan.resource_changes.map((r) => r.address).sort();
        const synthesized = join(ws.dir, 'cdk.tf.json');
        const json = readFileSync(synthesized, 'utf8');
        const keyOf = (address: string) => address.replace(/\[\d+\]$/, '').split('.')[1] as string;
        expect(addresses).toHaveLength(3);
        const located = await locateAddresses(addresses, { configDir: ws.dir });
        for (const address of addresses) {
          expect(located.get(address), address).toEqual({
            file: 'cdk.tf.json',
            line: lineOf(synthesized, `      "${keyOf(address)}": {`),
            constructPath: expect.stringMatching(/^payments\/storage\//),
          });
        }
        const queue = addresses.find((a) => a.includes('queue'))!;
        expect(located.get(queue)?.constructPath).toBe('payments/storage/audit/queue');
        expect(json).toContain('"path": "payments/storage/audit/queue"');
      } finally {
        ws.cleanup();
      }
    } finally {
      out.cleanup();
    }
  });
});
