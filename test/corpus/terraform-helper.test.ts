// The real-terraform test helper, exercised once end to end so the tests built on it can trust it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCENARIOS_DIR, TerraformWorkspace } from '../helpers/terraform.js';

describe('TerraformWorkspace', () => {
  let workspace: TerraformWorkspace | undefined;
  afterEach(() => {
    workspace?.cleanup();
    if (workspace) expect(existsSync(workspace.dir)).toBe(false);
    workspace = undefined;
  });

  it('plans, applies, shows and reads state in a private copy with a quiet environment', async () => {
    workspace = TerraformWorkspace.forScenario('moved', 'before');
    expect(workspace.env.TF_IN_AUTOMATION).toBe('1');
    expect(workspace.env.CHECKPOINT_DISABLE).toBe('1');
    expect(workspace.env.TF_CLI_CONFIG_FILE).toMatch(/empty\.tfrc$/);

    const init = await workspace.init();
    expect(init.stderr).not.toContain('.terraformrc');
    expect(workspace.readState()).toBeUndefined();
    await workspace.apply();
    expect(workspace.stateAddresses()).toEqual(['terraform_data.cache', 'terraform_data.ledger_old']);

    // Swap to the scenario's final configuration, keeping state: the moved blocks show up in the plan.
    workspace.replaceConfig(join(SCENARIOS_DIR, 'moved', 'config'));
    await workspace.init();
    const planFile = await workspace.plan();
    const plan = JSON.parse(await workspace.showPlanJson()) as {
      resource_changes: Array<{ address: string; previous_address?: string; change: { actions: string[] } }>;
    };
    const changes = plan.resource_changes.map((rc) => [rc.address, rc.previous_address, rc.change.actions]);
    expect(changes.sort()).toEqual([
      ['module.store.terraform_data.cache', 'terraform_data.cache', ['update']],
      ['terraform_data.ledger', 'terraform_data.ledger_old', ['no-op']],
    ]);
    await workspace.applyPlan(planFile);
    expect(workspace.stateAddresses()).toEqual([
      'module.store.terraform_data.cache',
      'terraform_data.ledger',
    ]);
    const shown = JSON.parse(await workspace.showStateJson()) as { values: { root_module: object } };
    expect(shown.values.root_module).toBeDefined();
    // Source fixture untouched: no state or .terraform leaked back into the repository.
    expect(existsSync(join(SCENARIOS_DIR, 'moved', 'before', 'terraform.tfstate'))).toBe(false);
    expect(existsSync(join(SCENARIOS_DIR, 'moved', 'config', '.terraform'))).toBe(false);
  });

  it('throws with terraform output on failure, or returns it when allowed', async () => {
    workspace = TerraformWorkspace.forScenario('deposed');
    await workspace.init();
    await expect(workspace.apply(['-var', 'fail_provisioner=true'])).rejects.toThrow(/exited 1/);
    const failed = await workspace.apply(['-var', 'fail_provisioner=true'], { allowFailure: true });
    expect(failed.exitCode).not.toBe(0);
    expect(failed.stderr).toContain('local-exec');
  });
});
