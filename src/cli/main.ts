#!/usr/bin/env node
// The one top-level catch: every command returns an exit code or throws; here errors become exit codes.
import { constants } from 'node:os';
import { type Command, CommanderError } from 'commander';
import {
  ExitCode,
  exitCodeFor,
  formatError,
  InterruptedError,
  type InterruptSignal,
} from '../errors/index.js';
import { terminalSafeError } from '../report/terminal-safe.js';
import { recordedExitCode } from './exit-code.js';
import { explainMissingOptions } from './missing-options.js';
import { unsupportedNodeWarning } from './node-support.js';
import { buildProgram } from './program.js';

/** Set when a signal ended the command outside a terraform step: tfgate then ends as that signal ends it. */
let endingSignal: InterruptSignal | undefined;

async function main(argv: string[]): Promise<number> {
  // The command that ran, so a missing flag is named in that command's words.
  let running: Command | undefined;
  try {
    const program = buildProgram(argv).hook('preAction', (_program, action) => {
      running = action;
      // Every command, before it does anything: a Node.js tfgate does not support is said, never silent.
      const warning = unsupportedNodeWarning();
      if (warning) process.stderr.write(`${warning}\n`);
    });
    await program.parseAsync(argv);
    // Actions report their exit code through setExitCode; a command that sets none succeeded.
    return recordedExitCode(program) ?? ExitCode.ok;
  } catch (error) {
    if (isCommanderExit(error)) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    const explained = explainMissingOptions(error, running);
    // A message may quote a path, a key or a service's words: its control characters are shown, not obeyed.
    process.stderr.write(`${terminalSafeError(formatError(explained))}\n`);
    if (explained instanceof InterruptedError) {
      // As `check` and `gate` end on the signal: killed by it (the shell's 130 for SIGINT, 143 for SIGTERM,
      // 129 for SIGHUP).
      endingSignal = explained.signal;
      return 128 + constants.signals[explained.signal];
    }
    return exitCodeFor(explained);
  }
}

/** commander has already printed its error (unknown option, missing argument, repeated option) or the help. */
function isCommanderExit(error: unknown): error is CommanderError {
  return error instanceof CommanderError;
}

// A reader that goes away (`tfgate … | head`, EPIPE) or a terminal that closed (EIO, after SIGHUP) is not our
// error: stop writing there, keep the decision's exit code, let terraform wind down.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'EIO') throw error;
  });
}

// The command has finished when main resolves: once stdout and stderr are flushed, exit. Waiting for the
// event loop to drain instead lets V8 finish garbage collection the process no longer needs (an incremental
// mark-compact ~10 ms before exit on a 1k-change check, measured with --trace-gc).
main(process.argv).then(async (code) => {
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // A child still running (terraform, after a signal was forwarded to it) keeps tfgate until it exits, as the
  // event loop would: tfgate never ends while terraform may still hold the state lock.
  if (!process.getActiveResourcesInfo().includes('ProcessWrap')) end(code);
  else if (endingSignal !== undefined) process.once('beforeExit', () => end(code));
});

/** Exit with `code`; after an interrupt, by the signal itself, as a process without a handler for it ends. */
function end(code: number): void {
  if (endingSignal !== undefined) {
    process.removeAllListeners(endingSignal);
    process.kill(process.pid, endingSignal);
    // Where the signal does not end the process (PID 1 in a container ignores it), its exit code does.
    setTimeout(() => process.exit(code), 1000);
    return;
  }
  process.exit(code);
}

/** Resolves when what was written to `stream` has been handed to the OS (or the stream failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write('', () => resolve());
  });
}
