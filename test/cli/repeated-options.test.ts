// A flag that takes one value refuses to be given twice (exit 1, naming the flag), on every command. Issue 8,
// defect 5: `tfgate check --plan-json a.json --plan-json b.json` evaluated only b.json and exited 0 when
// a.json would block. Repeatable flags (values that accumulate: --format, --output, --scopes, and since
// issue 12 --plan-json and --plan-file, every plan judged under one verdict) and boolean flags may repeat.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError, type Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { collect } from '../../src/options/common.js';
import { scenario } from '../fixtures/corpus.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { generateTestKeys } from '../policy/bundle-fixtures.js';
import { capturedStderr, leafCommands, parseWithRecordedActions } from './recorded-program.js';

const isSingleValue = (o: Option) => (o.required || o.optional) && !o.variadic && o.parseArg !== collect;

const COMMANDS = leafCommands(buildProgram()).map(({ path, command }) => ({
  name: path.join(' '),
  path,
  singleValue: (command.options as Option[]).filter(isSingleValue).map((o) => o.long!),
}));

const stderr = capturedStderr();

it('covers every command', () => {
  expect(COMMANDS.map((c) => c.name).sort()).toEqual(
    [
      'apply',
      'bundle build',
      'bundle pull',
      'bundle verify',
      'check',
      'gate',
      'keys create',
      'keys list',
      'keys revoke',
      'run-task configure',
      'run-task show',
      'accounts create',
      'design push',
      'design approve',
      'design show',
      'design diff',
      'findings list',
      'findings ack',
      'findings plan-acks',
      'findings revoke',
      'audit',
      'plan',
      'serve',
      'state push',
      'state-source set',
      'state-source show',
      'state-source clear',
    ].sort(),
  );
  for (const command of COMMANDS) expect(command.singleValue.length, command.name).toBeGreaterThan(0);
});

describe.each(COMMANDS)('tfgate $name', ({ path, singleValue }) => {
  it('refuses each single-value flag given twice, naming it, before anything runs', async () => {
    for (const flag of singleValue) {
      for (const args of [
        [...path, flag, 'first', flag, 'second'],
        [...path, `${flag}=first`, `${flag}=second`],
      ]) {
        const { ran, error } = await parseWithRecordedActions(args);
        expect(error, `${args.join(' ')} was accepted`).toBeInstanceOf(CommanderError);
        expect((error as CommanderError).exitCode).toBe(1);
        expect(error!.message).toContain(`${flag} was given more than once ("first", then "second")`);
        expect(stderr()).toContain(`give ${flag} once`);
        expect(ran).toEqual([]);
      }
    }
  });
});

describe('flags that may repeat', () => {
  it('--format and --output collect their values (paired by position)', async () => {
    const { ran, error } = await parseWithRecordedActions([
      'check',
      '--format',
      'json',
      '--output',
      'a.json',
      '--format',
      'text',
      '--output',
      'b.txt',
    ]);
    expect(error).toBeUndefined();
    expect(ran).toEqual(['check']);
  });

  it('boolean flags mean the same given twice', async () => {
    const { ran, error } = await parseWithRecordedActions([
      'gate',
      '--advisory',
      '--advisory',
      '--refresh',
      '--refresh',
    ]);
    expect(error).toBeUndefined();
    expect(ran).toEqual(['gate']);
  });

  it('--config of state-source set collects its settings', async () => {
    const args = ['state-source', 'set', '--type', 'pg', '--config', 'a=1', '--config', 'b=2'];
    const { ran, error } = await parseWithRecordedActions(args);
    expect(error).toBeUndefined();
    expect(ran).toEqual(['state-source set']);
  });

  it('variadic --scopes of keys create accumulates', async () => {
    const args = ['keys', 'create', '--account', 'a', '--name', 'n', '--scopes', 'admin', '--scopes', 'x'];
    const { ran, error } = await parseWithRecordedActions(args);
    expect(error).toBeUndefined();
    expect(ran).toEqual(['keys create']);
  });
});

describe('tfgate check --plan-json a.json --plan-json b.json (the built CLI)', () => {
  const cloud = scenario('cloud-creations');
  let dir: string;
  let offline: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tfgate-repeated-'));
    const keys = generateTestKeys();
    await Promise.all([
      writeFile(join(dir, 'signing.pem'), keys.privatePem, { mode: 0o600 }),
      writeFile(join(dir, 'public.pem'), keys.publicPem),
      buildCli(),
    ]);
    const built = await runCli([
      'bundle',
      'build',
      '--design',
      cloud.designPath,
      '--signing-key',
      join(dir, 'signing.pem'),
      '--output',
      join(dir, 'bundle.tar.gz'),
    ]);
    expect(built.exitCode, built.stderr).toBe(0);
    offline = ['--bundle', join(dir, 'bundle.tar.gz'), '--public-key', join(dir, 'public.pem')];
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('judges both and blocks, where it used to evaluate b.json alone and pass', async () => {
    const blocking = cloud.planPath;
    const passing = scenario('no-change').planPath;
    // The two plans mean what the test says: the first blocks, the second passes.
    expect((await runCli(['check', '--plan-json', blocking, ...offline])).exitCode).toBe(3);
    expect((await runCli(['check', '--plan-json', passing, ...offline])).exitCode).toBe(0);

    for (const args of [
      ['--plan-json', blocking, '--plan-json', passing],
      [`--plan-json=${blocking}`, `--plan-json=${passing}`],
    ]) {
      const both = await runCli(['check', ...args, ...offline, '--format', 'json']);
      expect(both.exitCode, both.stderr).toBe(3);
      const body = JSON.parse(both.stdout);
      expect(body.decision).toBe('block');
      expect(body.results.map((r: { plan: string; decision: string }) => [r.plan, r.decision])).toEqual([
        [blocking, 'block'],
        [passing, 'pass'],
      ]);
    }
  });
});
