// A task run every interval, one run at a time: a tick while the last run is still going is skipped. The
// timer never keeps the process alive; stop() clears it at once and waits for a run in progress.

export interface Periodic {
  stop(): Promise<void>;
}

/** Run `task` every `intervalMs`; the task handles (and logs) its own errors. */
export function every(intervalMs: number, task: () => Promise<void>): Periodic {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= task().finally(() => {
      running = undefined;
    });
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return running ?? Promise.resolve();
    },
  };
}
