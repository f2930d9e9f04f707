// Expired dashboard sessions are removed at start and then every 15 minutes, so they do not pile up when
// nobody signs in (a sign-in also removes them on the way). Every instance sweeps: the DELETE is idempotent
// and reads the expiry index, so instances sharing a PostgreSQL need no coordination.

import { errorMessage } from '../errors/index.js';
import type { Logger } from './core/log.js';
import { every } from './every.js';
import type { Store } from './store/index.js';

export const SESSION_SWEEP_INTERVAL_MS = 15 * 60_000;

export interface SessionSweeper {
  /** Stops the timer and waits for a sweep under way. */
  stop(): Promise<void>;
}

/** Sweeps once (resolved when done), then every `intervalMs`. A failed sweep is logged and tried again later. */
export async function startSessionSweeper(
  store: Store,
  log: Logger,
  intervalMs = SESSION_SWEEP_INTERVAL_MS,
): Promise<SessionSweeper> {
  const sweep = async (): Promise<void> => {
    try {
      const removed = await store.uiSessions.deleteExpired();
      if (removed > 0) log.info('expired dashboard sessions removed', { removed });
    } catch (error) {
      log.warn('expired dashboard sessions could not be removed; trying again at the next sweep', {
        error: errorMessage(error),
      });
    }
  };
  await sweep();
  return every(intervalMs, sweep);
}
