// Where a command's output goes: stdout for reports, stderr for notices; colour for stdout only.
export interface CommandIo {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown };
  env: NodeJS.ProcessEnv;
  color: boolean;
  /** Set once a signal interrupted the run (interruptible.ts): reports are no longer written. */
  interrupted?: () => Error | undefined;
}
