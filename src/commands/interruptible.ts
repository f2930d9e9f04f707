// A signal during `check` or `gate`, which run no terraform step of their own to forward it to: no decision,
// every report file saying so, then tfgate ends by the signal (src/cli/main.ts). Without it the signal
// killed tfgate at once and left an earlier run's report, which a CI step could publish as this run's pass.
import { InterruptedError } from '../errors/index.js';
import { SignalGuard } from '../terraform/signals.js';
import { type NoDecisionTarget, reportAndThrow } from './no-decision.js';

export interface InterruptibleOptions extends NoDecisionTarget {
  /** What was under way, for the message: "the evaluation", "the gate call". */
  during: string;
}

/**
 * Run `work` until a signal. `interrupted` tells the work (its report writer) that a signal came, so no
 * decision made after it is written over the interrupt's reports.
 */
export async function untilInterrupted<T>(
  work: (interrupted: () => InterruptedError | undefined) => Promise<T>,
  options: InterruptibleOptions,
): Promise<T> {
  const guard = SignalGuard.install();
  let interruption: InterruptedError | undefined;
  let stop!: (error: InterruptedError) => void;
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  stopped.catch(() => {});
  guard.onSignal((signal) => {
    if (interruption) return;
    interruption = new InterruptedError(
      signal,
      `interrupted by ${signal} during ${options.during}: no decision`,
      {
        hint: 'nothing was decided; run it again',
      },
    );
    stop(interruption);
  });
  try {
    return await Promise.race([work(() => interruption), stopped]);
  } catch (error) {
    if (interruption && error === interruption) return await reportAndThrow(interruption, options);
    throw error;
  } finally {
    guard.dispose();
  }
}
