// The CLI's program with its actions replaced by a recorder, for tests of how arguments are parsed and refused:
// nothing runs, what would have run is returned, and what commander writes to stderr is kept.
import type { Command } from 'commander';
import { afterEach, beforeEach, vi } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';

/** Every command that runs (no subcommands), with its path from the program. */
export function leafCommands(
  command: Command,
  path: string[] = [],
): Array<{ path: string[]; command: Command }> {
  if (command.commands.length === 0) return [{ path, command }];
  return command.commands.flatMap((sub) => leafCommands(sub, [...path, sub.name()]));
}

/** Parse `args` (after `tfgate`): the commands that ran, and the error parsing threw, if any. */
export async function parseWithRecordedActions(args: string[]) {
  const program = buildProgram();
  const ran: string[] = [];
  for (const { path, command } of leafCommands(program)) command.action(() => void ran.push(path.join(' ')));
  try {
    await program.parseAsync(args, { from: 'user' });
    return { ran, error: undefined };
  } catch (error) {
    return { ran, error: error as Error };
  }
}

/** What the test so far wrote to stderr; registers hooks that capture it afresh for each test. */
export function capturedStderr(): () => string {
  let stderr = '';
  beforeEach(() => {
    stderr = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr += String(chunk);
      return true;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return () => stderr;
}
