// A real errored plan: a precondition fails unless release is v2, so `terraform plan` exits 1 and still
// writes the plan file (`"errored": true` in its JSON, with only part of the resource changes).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TerraformWorkspace } from './terraform.js';

export const GUARDED_CONFIG = `variable "release" {
  default = "v1"
}

resource "terraform_data" "ok" {
  input = "fine"
}

resource "terraform_data" "guarded" {
  input = var.release
  lifecycle {
    precondition {
      condition     = var.release == "v2"
      error_message = "release must be v2"
    }
  }
}
`;

/** A workspace with the guarded configuration, initialized; `cleanup()` removes the source copy too. */
export async function guardedWorkspace(): Promise<TerraformWorkspace> {
  const source = mkdtempSync(join(tmpdir(), 'tfgate-errored-config-'));
  writeFileSync(join(source, 'main.tf'), GUARDED_CONFIG);
  const ws = TerraformWorkspace.create(source);
  rmSync(source, { recursive: true, force: true });
  await ws.init();
  return ws;
}

/** `terraform plan -out=<file>` that fails on the precondition; returns the saved plan's path and stderr. */
export async function erroredPlan(ws: TerraformWorkspace, planFile = 'errored.tfplan') {
  const result = await ws.run(['plan', '-input=false', '-no-color', `-out=${planFile}`], {
    allowFailure: true,
  });
  return { exitCode: result.exitCode, stderr: result.stderr, path: join(ws.dir, planFile) };
}
