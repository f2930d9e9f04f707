// The terminal a CLI command writes to: the process's streams and environment, colour decided once.
import type { CommandIo } from '../commands/io.js';
import { useColor } from './progress.js';

export function terminalIo(): CommandIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    color: useColor(process.stdout, process.env),
  };
}
