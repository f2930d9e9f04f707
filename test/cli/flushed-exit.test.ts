// The CLI exits as soon as its command is done and its output flushed (not when the event loop drains): a
// report larger than a pipe's buffer, read slowly, still arrives whole, with the decided exit code.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useScenarioBundle } from '../commands/check-fixtures.js';
import { scenario } from '../fixtures/corpus.js';
import { CLI_MAIN } from '../helpers/cli.js';

const cloud = scenario('cloud-creations');
const fixture = useScenarioBundle('cloud-creations');

it('a SARIF report of several hundred findings, read slowly through a pipe, arrives whole', async () => {
  // The scenario's changes, 100 times over under distinct addresses: every copy is a finding.
  const plan = JSON.parse(readFileSync(cloud.planPath, 'utf8')) as {
    resource_changes: Array<{ address: string; name: string }>;
  };
  plan.resource_changes = Array.from({ length: 100 }, (_, copy) =>
    plan.resource_changes.map((change) => ({
      ...change,
      address: `${change.address}_${copy}`,
      name: `${change.name}_${copy}`,
    })),
  ).flat();
  const planPath = join(fixture.dir, 'many.json');
  writeFileSync(planPath, JSON.stringify(plan));
  const args = ['check', '--plan-json', planPath, '--bundle', fixture.bundlePath];
  const child = spawn(
    process.execPath,
    [CLI_MAIN, ...args, '--public-key', fixture.publicKeyPath, '--format', 'sarif'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Nobody reads for a while: tfgate fills the pipe and must wait for the reader, not exit.
  child.stdout.pause();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdout.resume();
  const code = await new Promise<number | null>((done) => child.on('close', done));
  const out = Buffer.concat(chunks).toString();
  expect(out.length).toBeGreaterThan(128 * 1024);
  const log = JSON.parse(out) as { runs: Array<{ results: unknown[] }> };
  expect(log.runs[0]?.results.length).toBeGreaterThanOrEqual(100);
  expect(code).toBe(3);
}, 120_000);
