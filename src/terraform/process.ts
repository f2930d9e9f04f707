// Spawn a child process over node:child_process: execa cost ~100 ms of module loading at every start-up.
import { type ChildProcess, spawn } from 'node:child_process';

type Stdio = 'pipe' | 'inherit' | 'ignore' | number;

export interface SpawnOptions {
  /** The whole environment of the child: nothing of ours is added. */
  env: NodeJS.ProcessEnv;
  stdout: Stdio;
  stderr: Stdio;
  /** Own process group, so a terminal's Ctrl-C reaches us alone (see SignalGuard). */
  detached?: boolean;
  /** Collect a piped stream into a string on the result (its final newline dropped). */
  buffer?: { stdout?: boolean; stderr?: boolean };
  /** SIGTERM the child after this long; the result says timedOut. */
  timeoutMs?: number;
}

export interface ProcessResult {
  /** Undefined when the child died by a signal or never started. */
  exitCode: number | undefined;
  signal: NodeJS.Signals | undefined;
  stdout?: string;
  stderr?: string;
  /** Set when the child could not be started (e.g. ENOENT). */
  spawnError?: NodeJS.ErrnoException;
  timedOut: boolean;
}

export interface SpawnedProcess {
  child: ChildProcess;
  /** Settles once the child exited and its streams closed; never rejects. */
  result: Promise<ProcessResult>;
}

export function spawnProcess(
  command: string,
  args: readonly string[],
  options: SpawnOptions,
): SpawnedProcess {
  const child = spawn(command, args, {
    env: options.env,
    stdio: ['ignore', options.stdout, options.stderr],
    detached: options.detached ?? false,
  });
  const collected = {
    stdout: collect(child.stdout, options.buffer?.stdout),
    stderr: collect(child.stderr, options.buffer?.stderr),
  };
  let timedOut = false;
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
        }, options.timeoutMs);
  const result = new Promise<ProcessResult>((resolve) => {
    const settle = (partial: Pick<ProcessResult, 'exitCode' | 'signal' | 'spawnError'>) => {
      if (timer) clearTimeout(timer);
      resolve({ ...partial, stdout: collected.stdout?.(), stderr: collected.stderr?.(), timedOut });
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      // 'error' after a successful start is a failed kill(); the child still closes normally.
      if (child.pid === undefined) settle({ exitCode: undefined, signal: undefined, spawnError: error });
    });
    child.once('close', (code, signal) => {
      if (child.pid === undefined) return;
      settle({ exitCode: code ?? undefined, signal: signal ?? undefined });
    });
  });
  return { child, result };
}

/** "Command failed with ENOENT: terraform version" and the like, for error messages. */
export function describeProcessFailure(
  command: string,
  args: readonly string[],
  result: ProcessResult,
): string {
  const line = [command, ...args].join(' ');
  if (result.spawnError)
    return `Command failed with ${result.spawnError.code ?? result.spawnError.message}: ${line}`;
  if (result.timedOut) return `Command timed out: ${line}`;
  if (result.signal) return `Command was killed with ${result.signal}: ${line}`;
  return `Command failed with exit code ${result.exitCode}: ${line}`;
}

function collect(
  stream: NodeJS.ReadableStream | null,
  enabled: boolean | undefined,
): (() => string) | undefined {
  if (!stream || !enabled) return undefined;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () =>
    Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
}
