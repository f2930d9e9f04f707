// A usage error is its line and a pointer to --help, not the whole help page; an argument a command does not
// take is refused naming it, and a plan given without its flag (`tfgate check plan.json`, the usual slip of a
// conftest user) is answered with the flag. Commander said "too many arguments. Expected 0 arguments but got
// 1" and then printed ~60 lines of help, which pushed that line out of a pipeline log's view.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { EXAMPLE_DIR, makeKeys, signedBundle } from '../commands/wrapper-fixtures.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { capturedStderr, leafCommands, parseWithRecordedActions } from './recorded-program.js';

/** Commands whose arguments are fixed in number (apply and plan pass the rest on to terraform). */
const FIXED = leafCommands(buildProgram())
  .filter(({ command }) => !command.registeredArguments.at(-1)?.variadic)
  .map(({ path, command }) => ({
    name: path.join(' '),
    path,
    takes: command.registeredArguments.map((argument) => `argument-${argument.name()}`),
    // commander checks required options before arguments: give them, so the argument is what is refused
    required: command.options.filter((option) => option.mandatory).flatMap((option) => [option.long!, 'x']),
  }));

const stderr = capturedStderr();

it('covers the commands with and without arguments', () => {
  expect(FIXED.length).toBeGreaterThan(20);
  expect(FIXED.map((c) => c.name)).toContain('findings ack');
  expect(FIXED.map((c) => c.name)).not.toContain('apply');
});

describe.each(FIXED)('tfgate $name', ({ name, path, takes, required }) => {
  it('refuses one argument more than it takes, naming it, before anything runs', async () => {
    const { ran, error } = await parseWithRecordedActions([...path, ...takes, 'stray-value', ...required]);
    expect(error, `${name} accepted an extra argument`).toBeInstanceOf(CommanderError);
    expect((error as CommanderError).exitCode).toBe(1);
    expect(error!.message).toContain(`tfgate ${name} takes`);
    expect(error!.message).toContain('"stray-value"');
    expect(stderr()).toContain(`(tfgate ${name} --help lists every option)`);
    expect(stderr()).not.toContain('Usage:');
    expect(ran).toEqual([]);
  });
});

it('still runs a command given the arguments it takes', async () => {
  const { ran, error } = await parseWithRecordedActions(['findings', 'ack', 'f_1']);
  expect(error).toBeUndefined();
  expect(ran).toEqual(['findings ack']);
});

describe('a plan given without its flag', () => {
  it.each([
    ['plan.json', '--plan-json plan.json'],
    ['-', '--plan-json -'],
    ['out.tfplan', '--plan-file out.tfplan'],
  ])('check %s names the flag', async (argument, flag) => {
    const { error } = await parseWithRecordedActions(['check', argument]);
    expect(error!.message).toContain(`a plan is given with ${flag}`);
  });

  it('quotes a name with spaces or control characters, so the terminal shows it escaped', async () => {
    const { error } = await parseWithRecordedActions(['check', 'my plan\u001b[2J.json']);
    expect(error!.message).toContain('a plan is given with --plan-json "my plan\\u001b[2J.json"');
    expect(error!.message).not.toContain('\u001b');
  });

  it('a value that is no plan is not called one', async () => {
    const { error } = await parseWithRecordedActions(['gate', 'prod']);
    expect(error!.message).toContain('an option takes its value after the flag');
    expect(error!.message).not.toContain('a plan is given');
  });
});

describe('the built CLI', () => {
  beforeAll(buildCli, 120_000);

  it('prints the error and where to look, exit 1', async () => {
    const result = await runCli(['check', 'plan.json']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      'error: tfgate check takes no arguments, but was given "plan.json"; a plan is given with --plan-json plan.json',
      '(tfgate check --help lists every option)',
    ]);
  });

  it('shows the control and bidirectional characters an error quotes as \\u escapes', async () => {
    const result = await runCli([
      'check',
      '--plan-json',
      'plan\u001bc\u202e.json',
      '--bundle',
      'b.tar.gz',
      '--public-key',
      'k.pem',
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('error: --plan-json "plan\\u001bc\\u202e.json" does not exist');
    expect(result.stderr.includes('\u001b') || result.stderr.includes('\u202e')).toBe(false);
  });

  it('a plan that exists and does not read, at a path with a newline: no line of the error is a workflow command', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-newline-plan-'));
    try {
      const keys = makeKeys();
      const { bundle: bundlePath, publicKey: publicKeyPath } = await signedBundle(
        keys,
        join(EXAMPLE_DIR, 'design.yaml'),
        'newline',
      );
      // One plan, and a directory of plans whose root name holds the newline.
      writeFileSync(join(dir, 'p\n::error title=x::injected.json'), 'not json');
      mkdirSync(join(dir, 'st', 'a'), { recursive: true });
      mkdirSync(join(dir, 'st', 'b\n::error title=pwned::x'), { recursive: true });
      writeFileSync(
        join(dir, 'st', 'a', 'plan.json'),
        readFileSync(join(import.meta.dirname, '..', 'fixtures', 'plans', 'no-change.json')),
      );
      writeFileSync(join(dir, 'st', 'b\n::error title=pwned::x', 'plan.json'), 'not json');
      for (const input of ['p\n::error title=x::injected.json', 'st']) {
        const result = await runCli(
          ['check', '--plan-json', input, '--bundle', bundlePath, '--public-key', publicKeyPath],
          { cwd: dir, env: { GITHUB_ACTIONS: 'true' } },
        );
        expect(result.exitCode, result.stderr).toBe(4);
        expect(result.stderr).not.toMatch(/^::/m);
        expect(result.stderr).toContain('\\n::error title=');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a path with a newline stays on the error line, the newline escaped: no line of its own in a CI log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-newline-'));
    try {
      const file = join(dir, 'plan.json');
      writeFileSync(file, '{}');
      const route = ['--bundle', file, '--public-key', file];
      const cases: Array<[string[], string]> = [
        // A missing input file.
        [
          ['check', '--plan-json', 'a\n::error::forged.json', ...route],
          'error: --plan-json "a\\n::error::forged.json" does not exist',
        ],
        [
          ['check', '--plan-json', file, '--bundle', 'b\r\nPASS', '--public-key', file],
          'error: --bundle "b\\r\\nPASS" does not exist',
        ],
        [['check', '--plan-json', 'x\n*.json', ...route], 'error: --plan-json "x\\n*.json" matches no plan'],
        [
          ['check', '--plan-map', 'm\nap.yaml', ...route],
          'error: --plan-map "m\\nap.yaml" cannot be read: ENOENT: no such file or directory, open "m\\nap.yaml"',
        ],
        // An output that cannot be written.
        [
          ['check', '--plan-json', file, ...route, '--report', 'sarif=no\ndir/r.sarif'],
          'error: cannot write the sarif report to "no\\ndir/r.sarif": the directory "no\\ndir" does not exist',
        ],
        // A design that exists and does not parse; a key that is not a key; two working directories.
        [
          ['bundle', 'build', '--design', 'd\nesign.yaml', '--signing-key', file, '--output', 'b.tar.gz'],
          'error: "d\\nesign.yaml":2: not valid YAML or JSON: a key is given twice in one mapping',
        ],
        [
          ['apply', '--chdir', 'a\nb', ...route, '--', '-chdir=c'],
          'error: --chdir "a\\nb" and -chdir=c disagree',
        ],
        // A working directory that is not there: the user's to fix (1), not terraform's failure (2).
        [['apply', '--chdir', 'no\ndir', ...route], 'error: --chdir "no\\ndir" does not exist'],
        [['plan', ...route, '--', '-chdir=gone'], 'error: -chdir gone does not exist'],
      ];
      writeFileSync(join(dir, 'd\nesign.yaml'), 'a: 1\na: 2\n');
      for (const [args, line] of cases) {
        const result = await runCli(args, { cwd: dir });
        expect(result.exitCode, result.stderr).toBe(1);
        const [first, ...rest] = result.stderr.split('\n');
        expect(first).toBe(line);
        // The hint is the one other line, and it too names the path escaped.
        expect(rest).toEqual([expect.stringMatching(/^hint: /)]);
        expect(result.stderr).not.toContain('\r');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shows the control characters commander's own errors quote as \\u escapes", async () => {
    const option = await runCli(['check', '--x\u001b[2Jy']);
    expect(option.exitCode).toBe(1);
    expect(option.stderr).toContain("error: unknown option '--x\\u001b[2Jy'");
    const command = await runCli(['chk\u001b[31m']);
    expect(command.stderr).toContain("error: unknown command 'chk\\u001b[31m'");
    expect(`${option.stderr}${command.stderr}`.includes('\u001b')).toBe(false);
  });

  it("no line of commander's own errors is a workflow command, when what they quote holds a line break", async () => {
    const option = await runCli(['check', '--x\n::error::forged']);
    const command = await runCli(['chk\n::error::forged']);
    for (const result of [option, command]) {
      expect(result.exitCode).toBe(1);
      expect(result.stderr).not.toMatch(/^::/m);
      expect(result.stderr).toContain('\n ::error::forged');
    }
  });

  it('points an unknown command at the list of commands', async () => {
    const result = await runCli(['chek']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('(Did you mean check?)');
    expect(result.stderr).toContain('(tfgate --help lists every command)');
    expect(result.stderr).not.toContain('Usage:');
  });
});

describe('missing flags', () => {
  it("are said in tfgate's words by every command, never commander's \"required option '…' not specified\"", async () => {
    const mandatory = leafCommands(buildProgram()).flatMap(({ path, command }) =>
      command.options
        .filter((option) => option.mandatory)
        .map((option) => `${path.join(' ')} ${option.long}`),
    );
    expect(mandatory).toEqual([]);
    await buildCli();
    const result = await runCli(['bundle', 'build', '--design', 'design.yaml'], {
      env: { TFGATE_SIGNING_KEY: '' },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      'error: tfgate bundle build needs:\n  --signing-key <pem>: RSA private key, PEM (env TFGATE_SIGNING_KEY)\n  --output <bundle.tar.gz>: where to write the bundle',
    );
    expect(result.stderr).not.toContain('not specified');
  });
});

describe("a key's text where its file's path goes (a CI secret holds the PEM)", () => {
  it('is refused without repeating it, naming the flag or the variable that held it, before anything is created', async () => {
    await buildCli();
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-key-text-'));
    try {
      const design = ['--design', join(dir, 'design.yaml'), '--output', join(dir, 'b.tar.gz')];
      const dataDir = join(dir, 'data');
      const cases: Array<[string[], Record<string, string>, string]> = [
        [['bundle', 'build', ...design], { TFGATE_SIGNING_KEY: privatePem }, 'TFGATE_SIGNING_KEY holds'],
        [['bundle', 'build', ...design, '--signing-key', privatePem], {}, '--signing-key holds'],
        [
          ['serve', '--port', '0', '--data-dir', dataDir],
          { TFGATE_SIGNING_KEY_FILE: privatePem },
          '--signing-key-file (env TFGATE_SIGNING_KEY_FILE): holds',
        ],
        [
          ['check', '--plan-json', join(dir, 'plan.json'), '--bundle', join(dir, 'b.tar.gz')],
          { TFGATE_PUBLIC_KEY: publicPem },
          'TFGATE_PUBLIC_KEY holds',
        ],
        [['bundle', 'verify', join(dir, 'b.tar.gz'), '--public-key', publicPem], {}, '--public-key holds'],
      ];
      for (const [args, env, said] of cases) {
        const result = await runCli(args, { env, cwd: dir });
        expect(result.exitCode, result.stderr).toBe(1);
        expect(result.stderr).toContain(`${said} a key's text, not the path of a key file (not shown)`);
        expect(result.stderr).not.toContain('BEGIN');
        expect(result.stderr).not.toContain(privatePem.split('\n')[1]);
        expect(result.stderr).not.toContain(publicPem.split('\n')[1]);
      }
      // serve stopped before its data directory was made.
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serve: a signing key file that is not there is said before the store is created, not as an internal error', async () => {
    await buildCli();
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-key-file-'));
    try {
      const dataDir = join(dir, 'data');
      const result = await runCli(['serve', '--port', '0', '--data-dir', dataDir], {
        env: { TFGATE_SIGNING_KEY_FILE: join(dir, 'missing.pem') },
      });
      expect(result.exitCode, result.stderr).toBe(1);
      expect(result.stderr).toContain(
        '--signing-key-file (env TFGATE_SIGNING_KEY_FILE): is not a file: give the path of the RSA private key (PEM) that signs bundles',
      );
      expect(result.stderr).not.toContain('internal error');
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('terraform flags and tfgate options on the wrong side of --', () => {
  it.each(['plan', 'apply'])('tfgate %s says where each goes', async (command) => {
    await buildCli();
    const before = await runCli([command, '--bundle', 'b', '--public-key', 'k', '-var', 'n=1']);
    expect(before.exitCode).toBe(1);
    expect(before.stderr).toBe(
      `error: unknown option '-var'\n(terraform's plan flags go after --, e.g. tfgate ${command} … -- -var k=v; tfgate ${command} --help lists every option)`,
    );
    const after = await runCli([command, '--', '-var', 'n=1', '--bundle=b', '--public-key', 'k']);
    expect(after.exitCode).toBe(1);
    expect(after.stderr.split('\n')[0]).toBe(
      `error: --bundle comes after --, where terraform's plan flags go: tfgate's options go before --, e.g. tfgate ${command} --bundle … -- -var k=v`,
    );
  });
});
