// examples/hcp-terraform. HCP Terraform and the tfe provider cannot be reached here, so: the configuration is
// well-formed HCL (real `terraform fmt`) with the two documented tfe resources, attached as mandatory; and the
// README's set-up command runs against a real service, whose URL then answers HCP Terraform's verification
// request (sent by the double built from the documented formats, test/service/run-task/hcp-terraform-double.ts).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovedPackage, startService, type TestService } from '../helpers/service.js';
import { TERRAFORM_BIN } from '../helpers/terraform.js';
import { design } from '../service/fixtures.js';
import { sendRunTask } from '../service/run-task/hcp-terraform-double.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'hcp-terraform');
let svc: TestService;

beforeAll(async () => {
  svc = await startService();
  await createApprovedPackage(svc, design('payments'));
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

describe('examples/hcp-terraform', () => {
  it('is formatted HCL with the run task, attached to the workspace as mandatory by default', async () => {
    const fmt = await execa(TERRAFORM_BIN, ['fmt', '-check', '-diff', EXAMPLE], { reject: false });
    expect(fmt.exitCode, fmt.stdout + fmt.stderr).toBe(0);
    const main = readFileSync(join(EXAMPLE, 'main.tf'), 'utf8');
    expect(main).toMatch(/resource "tfe_organization_run_task" "tfgate"/);
    expect(main).toMatch(
      /resource "tfe_workspace_run_task" "tfgate"[\s\S]*enforcement_level = var.enforcement_level/,
    );
    expect(main).toMatch(/variable "enforcement_level"[\s\S]*default\s+= "mandatory"/);
    expect(main).toMatch(/hmac_key_wo\s+= var.tfgate_hmac_key\n/);
    // A write-only key is sent again only when its version changes (tfe provider 0.75 added the attribute).
    expect(main).toMatch(/hmac_key_wo_version = var.tfgate_hmac_key_version/);
    expect(main).toMatch(/version = ">= 0\.75"/);
  });

  it("the README's configure command prints the key alone and the URL that answers HCP Terraform's verification", async () => {
    const readme = readFileSync(join(EXAMPLE, 'README.md'), 'utf8');
    const command = /tfgate (run-task configure [^>\n]+?) >/.exec(readme)![1]!.trim().split(/\s+/);
    const res = await execa(
      process.execPath,
      ['--import', join(ROOT, 'test/helpers/ts-register.mjs'), join(ROOT, 'src/cli/main.ts'), ...command],
      { cwd: ROOT, env: { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey }, reject: false },
    );
    expect(res.exitCode, res.stderr).toBe(0);
    const key = res.stdout.trim();
    const url = /Endpoint URL: (\S+)/.exec(res.stderr)![1]!;
    expect(url).toBe(`${svc.baseUrl}/v1/analysis/conformance/packages/payments/run-task`);
    const verification = {
      payload_version: 1,
      stage: 'test',
      access_token: 'test-token',
      task_result_id: 'taskrs-verification',
      task_result_callback_url: 'https://app.terraform.io/api/v2/task-results/verification/callback',
    };
    expect((await sendRunTask(url, verification, key)).status).toBe(200);
    expect((await sendRunTask(url, verification, 'w'.repeat(43))).status).toBe(401);
  }, 60_000);
});
