// How a command action hands its exit code back to main(): actions never call process.exit. Its own module,
// so that program.ts and the command registrations both import it without importing each other.
import type { Command } from 'commander';

const EXIT_CODE_KEY = '__exitCode';

function root(command: Command): Command {
  let top: Command = command;
  while (top.parent) top = top.parent;
  return top;
}

/** Record the exit code of the command that ran. */
export function setExitCode(command: Command, code: number): void {
  root(command).setOptionValue(EXIT_CODE_KEY, code);
}

/** The exit code an action recorded, or undefined when it recorded none (it succeeded). */
export function recordedExitCode(program: Command): number | undefined {
  return program.getOptionValue(EXIT_CODE_KEY) as number | undefined;
}
