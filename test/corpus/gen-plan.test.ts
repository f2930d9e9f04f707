// The benchmark's plan generator: a plan the reader must accept, at the size real plans have.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/terraform.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'tfgate-gen-plan-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Change {
  address: string;
  mode: string;
  module_address?: string;
  previous_address?: string;
  change: { actions: string[]; importing?: object; before: unknown; after: unknown };
}

it('writes a terraform-shaped plan of N changes at about 1.4 KB per change', async () => {
  const path = join(scratch, 'plan.json');
  const changes = 2000;
  await run(process.execPath, ['bench/gen-plan.mjs', '--changes', String(changes), '--out', path], {
    cwd: REPO_ROOT,
  });
  const bytes = statSync(path).size;
  expect(bytes / changes).toBeGreaterThan(1200);
  expect(bytes / changes).toBeLessThan(1700);
  const plan = JSON.parse(readFileSync(path, 'utf8')) as {
    format_version: string;
    planned_values: { root_module: { child_modules: unknown[] } };
    resource_changes: Change[];
    prior_state: object;
    configuration: object;
  };
  // Terraform's order: the big planned_values section comes before resource_changes.
  const text = readFileSync(path, 'utf8');
  expect(text.indexOf('"planned_values"')).toBeLessThan(text.indexOf('"resource_changes"'));
  expect(plan.format_version).toBe('1.2');
  expect(plan.resource_changes).toHaveLength(changes);
  expect(new Set(plan.resource_changes.map((rc) => rc.address)).size).toBe(changes);
  expect(plan.planned_values.root_module.child_modules.length).toBeGreaterThan(0);
  const shapes = new Set(plan.resource_changes.map((rc) => rc.change.actions.join(',')));
  for (const shape of [
    'create',
    'update',
    'no-op',
    'delete',
    'delete,create',
    'create,delete',
    'read',
    'forget',
  ]) {
    expect(shapes).toContain(shape);
  }
  expect(plan.resource_changes.some((rc) => rc.change.importing)).toBe(true);
  expect(plan.resource_changes.some((rc) => rc.previous_address)).toBe(true);
  expect(plan.resource_changes.some((rc) => rc.module_address?.includes('.module.'))).toBe(true);
  expect(
    plan.resource_changes.filter((rc) => rc.mode === 'data').every((rc) => rc.address.includes('data.')),
  ).toBe(true);
});
