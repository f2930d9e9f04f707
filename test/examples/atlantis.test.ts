// examples/atlantis through Atlantis's own code: `go test` in test/atlantis, a Go harness pinned to an
// Atlantis release (its go.mod), that parses and validates repos.yaml and atlantis.yaml with Atlantis's parser
// and runs each pull request stage through Atlantis's project command runner, against the real service on
// loopback, real terraform, and the built tfgate on PATH. scripts/setup-tools.sh (go-harnesses) fetches the
// modules and warms Go's build cache (~/.cache/go-build), so this costs seconds after the first build.
import { existsSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildCli, REPO_ROOT } from '../helpers/cli.js';
import { createAccountKey, startService, type TestService } from '../helpers/service.js';
import { tfgateBinDir } from './tfgate-on-path.js';

const HARNESS = join(REPO_ROOT, 'test', 'atlantis');
/** Every test of the harness: one renamed or dropped fails here, so the suite cannot silently shrink. */
const HARNESS_TESTS = [
  'TestExampleConfigIsAcceptedByAtlantis',
  'TestRepositoryCanPickOnlyTheServersTfgateWorkflows',
  'TestPassingPlanPassesThePolicyCheckAndIsApplied',
  'TestBlockIsAPolicyFailureWithTheFindingsThatAPolicyOwnerCanApprove',
  'TestDesignTightenedAfterThePolicyCheckStopsTheApply',
  'TestServiceDownIsAnErrorThatStopsTheApply',
  'TestOfflineBundleDecidesWithTheServiceDown',
  'TestTamperedBundleIsAnErrorThatStopsTheApply',
  'TestMonorepoEachProjectIsCheckedAgainstItsOwnPackage',
];

let svc: TestService;
let binDir: string;

beforeAll(async () => {
  await buildCli();
  // `tfgate` on the Atlantis server's PATH, as a global install (or the runner image) puts it.
  binDir = tfgateBinDir();
  svc = await startService();
});

afterAll(async () => {
  await svc?.stop();
  rmSync(binDir, { recursive: true, force: true });
});

it('examples/atlantis passes the Atlantis harness (go test, Atlantis pinned in test/atlantis/go.mod)', async () => {
  const platform = await createAccountKey(svc, 'acme', 'large', ['compliance:read', 'compliance:write']);
  // The Atlantis server holds a read-only key, as the example's README says.
  const server = await createAccountKey(svc, 'acme', 'large', ['compliance:read'], 'atlantis');
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      // A TF_CLI_CONFIG_FILE naming a missing file makes terraform warn on stderr, and Atlantis's `show` step
      // writes stderr into $SHOWFILE too (tfgate then refuses the file: no decision). A server has no such file.
      ([k, v]) => !k.startsWith('TFGATE_') && !(k === 'TF_CLI_CONFIG_FILE' && !existsSync(v ?? '')),
    ),
  );
  // -json: one event per line, so each harness test's outcome is read, not guessed from text.
  const result = await execa('go', ['test', '-count=1', '-json', './...'], {
    cwd: HARNESS,
    env: {
      ...clean,
      PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`,
      NO_COLOR: '1',
      TFGATE_BASE_URL: svc.baseUrl,
      TFGATE_API_KEY: server.key,
      TFGATE_HARNESS_ADMIN_KEY: platform.key,
    },
    extendEnv: false,
    reject: false,
    timeout: 900_000,
  });
  const outcomes = new Map<string, string>();
  const output = new Map<string, string[]>();
  for (const line of String(result.stdout).split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as { Action: string; Test?: string; Output?: string };
    const test = event.Test ?? '(package)';
    if (event.Action === 'output') output.set(test, [...(output.get(test) ?? []), event.Output ?? '']);
    if (['pass', 'fail', 'skip'].includes(event.Action) && event.Test) outcomes.set(test, event.Action);
  }
  const failed = [...outcomes].filter(([, action]) => action !== 'pass').map(([test]) => test);
  const report = [...failed, '(package)'].map((t) => (output.get(t) ?? []).join('')).join('\n');
  expect(failed, report).toEqual([]);
  expect(result.exitCode, `${report}\n${result.stderr}`).toBe(0);
  expect([...outcomes.keys()].sort()).toEqual([...HARNESS_TESTS].sort());
}, 900_000);
