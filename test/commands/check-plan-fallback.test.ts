// `check --plan-json` without a configuration locates nothing, yet the plan file stands in for the findings'
// location in GitHub annotations and in SARIF (each needs a file). check skips the locator when no report
// needs it: these two still get the plan file; a JSON report is unchanged.
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenario } from '../fixtures/corpus.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { useScenarioBundle } from './check-fixtures.js';

const cloud = scenario('cloud-creations');
const fixture = useScenarioBundle('cloud-creations');
const planInRepository = relative(REPO_ROOT, cloud.planPath).split('\\').join('/');
const check = (args: string[], env: Record<string, string> = {}) =>
  runCli(
    [
      'check',
      '--plan-json',
      cloud.planPath,
      '--bundle',
      fixture.bundlePath,
      '--public-key',
      fixture.publicKeyPath,
      ...args,
    ],
    { env, cwd: REPO_ROOT },
  );

describe('check --plan-json without --config-dir', () => {
  it('GitHub annotations point at the plan file', async () => {
    const result = await check(['--format', 'text'], { GITHUB_ACTIONS: 'true' });
    expect(result.exitCode, result.stderr).toBe(3);
    expect(result.stdout).toContain(`::error file=${planInRepository},title=tfgate `);
  });

  it('SARIF results point at the plan file', async () => {
    const result = await check(['--format', 'sarif']);
    expect(result.exitCode, result.stderr).toBe(3);
    const log = JSON.parse(result.stdout) as {
      runs: Array<{ results: Array<{ locations: Array<{ physicalLocation?: unknown }> }> }>;
    };
    const uris = log.runs[0]?.results.map((r) => JSON.stringify(r.locations[0]?.physicalLocation ?? null));
    expect(uris?.length).toBeGreaterThan(0);
    for (const uri of uris ?? []) expect(uri).toContain(planInRepository);
  });
});
