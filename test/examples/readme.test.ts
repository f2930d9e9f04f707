// The README's runnable examples, run as a reader would paste them: each line of the shell blocks under
// "Managing packages" and "`tfgate gate`" in bash, with the built `tfgate` on PATH, against a real service;
// and the "Library API" example as a module importing the package by its name. Placeholders (<revision>,
// <finding-id>, <key-id>) are filled from the service, as a reader fills them from earlier output.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, REPO_ROOT } from '../helpers/cli.js';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { PAYMENTS_DESIGN, planJson, QUEUE, STATE_WITH_QUEUE } from '../service/fixtures.js';
import { tfgateBinDir } from './tfgate-on-path.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

const MARKER = '<!-- runnable: test/examples/readme.test.ts runs this block as written -->';

/** The fenced block of `language` after the heading that starts with `heading`; it must be marked runnable. */
function blockAfter(heading: string, language: string): string {
  const lines = README.split('\n');
  const at = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, '').startsWith(heading));
  if (at < 0) throw new Error(`README has no heading "${heading}"`);
  const rest = lines.slice(at + 1);
  const start = rest.indexOf(`\`\`\`${language}`);
  const end = rest.findIndex((line, i) => i > start && line === '```');
  if (start < 0 || end < 0) throw new Error(`no \`\`\`${language} block after "${heading}"`);
  if (rest[start - 1] !== MARKER) throw new Error(`the block after "${heading}" is not marked runnable`);
  return rest.slice(start + 1, end).join('\n');
}

/** The headings whose blocks this file runs; every block marked runnable must be one of them. */
const RUN_HERE = ['`tfgate gate`', 'Managing packages', 'Library API'];

/** The block's commands, one per line (a trailing backslash continues a line, as in a shell). */
function commands(block: string): string[] {
  return block
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

let svc: TestService;
let work: string;
let bin: string;

beforeAll(async () => {
  await buildCli();
  svc = await startService();
  work = mkdtempSync(join(tmpdir(), 'tfgate-readme-'));
  bin = tfgateBinDir();
  writeFileSync(join(work, 'design.yaml'), PAYMENTS_DESIGN);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(work, { recursive: true, force: true });
  rmSync(bin, { recursive: true, force: true });
});

/**
 * A line as a reader runs it: bash in the working directory, key and URL from the environment. Async: the
 * service runs in this process, so a synchronous child would wait on a server that cannot answer.
 */
async function run(line: string): Promise<{ status: number | undefined; stdout: string; stderr: string }> {
  const result = await execa('bash', ['-c', line], {
    cwd: work,
    reject: false,
    extendEnv: false,
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: work,
      TFGATE_BASE_URL: svc.baseUrl,
      TFGATE_API_KEY: svc.apiKey,
      NO_COLOR: '1',
    },
  });
  return { status: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** What a reader would paste for each placeholder, read from the service at the moment it is needed. */
async function fill(line: string): Promise<string> {
  let filled = line;
  if (filled.includes('<revision>')) {
    const pkg = await api<{ revision: string }>(svc, 'GET', `${CONFORMANCE}/packages/payments`);
    filled = filled.replaceAll('<revision>', pkg.body.revision);
  }
  if (filled.includes('<finding-id>')) {
    // Revoking: the acknowledgement the line before gave. Else drift to acknowledge: the pipeline pushes the
    // state, a drift check finds the unsanctioned queue.
    const status = filled.includes('findings revoke') ? 'acknowledged' : 'open';
    if (status === 'open') {
      await api(svc, 'PUT', `${CONFORMANCE}/packages/payments/observed-state`, { body: STATE_WITH_QUEUE });
      await api(svc, 'POST', `${CONFORMANCE}/packages/payments/drift-checks`);
    }
    const list = await api<{ findings: Array<{ id: string; address: string }> }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/payments/findings?status=${status}`,
    );
    const queue = list.body.findings.find((f) => f.address === `${QUEUE.type}.${QUEUE.name}`);
    if (!queue) throw new Error(`no ${status} finding for the queue: ${list.text}`);
    filled = filled.replaceAll('<finding-id>', queue.id);
  }
  if (filled.includes('<key-id>')) {
    const keys = await api<{ api_keys: Array<{ id: string; name: string }> }>(
      svc,
      'GET',
      '/v1/admin/accounts/pipelines/api-keys',
    );
    const key = keys.body.api_keys.find((k) => k.name === 'release-job');
    if (!key) throw new Error(`no release-job key: ${keys.text}`);
    filled = filled.replaceAll('<key-id>', key.id);
  }
  if (/<[a-z-]+>/.test(filled)) throw new Error(`a placeholder this test does not fill: ${filled}`);
  return filled;
}

describe("the README's examples, as a reader runs them", () => {
  it('runs every block the README marks runnable', () => {
    const lines = README.split('\n');
    const marked = lines.flatMap((line, i) => {
      if (line !== MARKER) return [];
      const heading = lines.slice(0, i).findLast((l) => /^#+ /.test(l)) ?? '';
      return [heading.replace(/^#+ /, '')];
    });
    expect(marked).toHaveLength(RUN_HERE.length);
    for (const heading of marked)
      expect(
        RUN_HERE.some((h) => heading.startsWith(h)),
        heading,
      ).toBe(true);
  });

  it('"Managing packages": every line succeeds against a real service, in order', async () => {
    const lines = commands(blockAfter('Managing packages', 'sh'));
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const result = await run(await fill(line));
      expect(result.status, `${line}\n${result.stdout}\n${result.stderr}`).toBe(0);
    }
    // The lines did what they say: approved, acknowledged then revoked (open again), and the key revoked.
    const pkg = await api<{ approved: boolean }>(svc, 'GET', `${CONFORMANCE}/packages/payments`);
    expect(pkg.body.approved).toBe(true);
    const open = await api<{ findings: Array<{ address: string }> }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/payments/findings?status=open`,
    );
    expect(open.body.findings.map((f) => f.address)).toContain(`${QUEUE.type}.${QUEUE.name}`);
    const audit = await api<{ entries: Array<{ event: string }> }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/payments/audit?limit=1000`,
    );
    const events = audit.body.entries.map((e) => e.event);
    expect(events).toContain('finding_acknowledged');
    expect(events).toContain('finding_acknowledgement_revoked');
    const keys = await api<{ api_keys: Array<{ name: string; revoked_at: string | null }> }>(
      svc,
      'GET',
      '/v1/admin/accounts/pipelines/api-keys',
    );
    expect(keys.body.api_keys.find((k) => k.name === 'release-job')?.revoked_at).not.toBeNull();
  });

  it('"`tfgate gate`": both lines pass once the findings are acknowledged, and block before', async () => {
    const lines = commands(blockAfter('`tfgate gate`', 'sh'));
    expect(lines).toHaveLength(2);
    // On its own too: the package approved (the block above approves it when it runs first).
    await createApprovedPackage(svc, PAYMENTS_DESIGN);
    // A fresh open finding (a second queue) blocks both the command and curl -f (exit 3 and 22).
    const state = JSON.parse(STATE_WITH_QUEUE) as {
      values: { root_module: { resources: Array<Record<string, unknown>> } };
    };
    const resources = state.values.root_module.resources;
    resources.push({ ...resources.at(-1), address: 'aws_sqs_queue.late', name: 'late' });
    await api(svc, 'PUT', `${CONFORMANCE}/packages/payments/observed-state`, { body: JSON.stringify(state) });
    await api(svc, 'POST', `${CONFORMANCE}/packages/payments/drift-checks`);
    const statuses: Array<number | undefined> = [];
    for (const line of lines) statuses.push((await run(line)).status);
    expect(statuses).toEqual([3, 22]);
    // Acknowledged, it passes both ways.
    const open = await api<{ findings: Array<{ id: string }> }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/payments/findings?status=open`,
    );
    for (const finding of open.body.findings) {
      await api(svc, 'POST', `${CONFORMANCE}/packages/payments/findings/${finding.id}/acknowledge`, {
        body: { reason: 'README test' },
      });
    }
    for (const line of lines) {
      const result = await run(line);
      expect(result.status, `${line}\n${result.stdout}\n${result.stderr}`).toBe(0);
    }
  });

  it('"Library API": the example runs as written, importing the package by its name', () => {
    const project = join(work, 'library');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    symlinkSync(REPO_ROOT, join(project, 'node_modules', 'tfgate'), 'dir');
    writeFileSync(join(project, 'package.json'), '{"type": "module"}');
    writeFileSync(join(project, 'design.yaml'), PAYMENTS_DESIGN);
    writeFileSync(join(project, 'plan.json'), planJson([{ ...QUEUE, actions: ['create'] }]));
    // The example has no type annotations, so it runs as JavaScript; it ends with the result in `result`.
    const example = blockAfter('Library API', 'ts');
    writeFileSync(join(project, 'example.mjs'), `${example}\nconsole.log(JSON.stringify(result));\n`);
    const out = execFileSync(process.execPath, ['example.mjs'], { cwd: project, encoding: 'utf8' });
    const result = JSON.parse(out) as { package_id: string; findings: Array<{ address: string }> };
    expect(result.package_id).toBe('payments');
    expect(result.findings.map((f) => f.address)).toContain('aws_sqs_queue.extra');
  });
});
