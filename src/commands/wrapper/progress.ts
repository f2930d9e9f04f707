// The one progress interface: what the wrapper reports its steps through. src/cli/progress.ts implements it
// for the terminal (createProgress); silentProgress is for library callers and tests.

export interface StepOptions {
  /** Terraform writes to the terminal during this step: no spinner, which would garble its output. */
  live?: boolean;
}

export interface ProgressReporter {
  step<T>(label: string, run: () => Promise<T>, options?: StepOptions): Promise<T>;
  info(message: string): void;
  warn(message: string): void;
  /** A message that must not be missed (advisory mode applying a blocked plan). */
  banner(message: string): void;
}

/** No output at all. */
export const silentProgress: ProgressReporter = {
  step: (_label, run) => run(),
  info: () => {},
  warn: () => {},
  banner: () => {},
};
