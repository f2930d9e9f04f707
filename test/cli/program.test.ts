// The program registers only the command a run names (building all of them cost each one-shot command ~8 ms),
// and every command for the program's own help, `help <command>` and anything it does not recognise.
import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_REGISTRATIONS } from '../../src/cli/commands/index.js';
import { buildProgram } from '../../src/cli/program.js';
import { buildCli, runCli } from '../helpers/cli.js';

const ALL = COMMAND_REGISTRATIONS.map((c) => c.name);
const names = (program: Command) => program.commands.map((c) => c.name());
const argv = (...args: string[]) => ['node', 'tfgate', ...args];

describe('the command table', () => {
  it('names each registration by the command it registers', () => {
    for (const { name, register } of COMMAND_REGISTRATIONS) {
      const program = new Command('tfgate');
      register(program);
      expect(names(program)).toEqual([name]);
    }
  });
});

describe('buildProgram', () => {
  it('builds only the command a run names', () => {
    expect(names(buildProgram(argv('check', '--plan-json', 'plan.json')))).toEqual(['check']);
    expect(names(buildProgram(argv('state-source', 'show', '--package', 'p')))).toEqual(['state-source']);
    expect(names(buildProgram(argv('apply', '--help')))).toEqual(['apply']);
  });

  it('builds every command for the program help, help <command>, an option first or an unknown command', () => {
    for (const args of [[], ['--help'], ['help', 'check'], ['-V'], ['chekc'], ['--plan-json', 'x']])
      expect(names(buildProgram(argv(...args)))).toEqual(ALL);
    expect(names(buildProgram())).toEqual(ALL);
  });
});

describe('help, as the built CLI prints it', () => {
  beforeAll(() => buildCli());

  it('lists every command in the program help', async () => {
    const result = await runCli(['--help']);
    expect(result.exitCode).toBe(0);
    for (const name of ALL) expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it("shows a command's own options in its help", async () => {
    const result = await runCli(['check', '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('--plan-json <file|dir|glob>');
    expect(result.stdout).toContain('--public-key <pem>');
  });

  it('suggests the command a typo meant', async () => {
    const result = await runCli(['chekc']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('(Did you mean check?)');
  });
});
