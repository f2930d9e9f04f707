// Scheduled drift checks. Each instance polls; the claim is made in the database (claimDueChecks), so
// however many instances share it, each package is checked once per interval.

import { errorMessage } from '../errors/index.js';
import type { ServiceContext } from './core/context.js';
import { runDriftCheck } from './core/drift.js';
import { every } from './every.js';

export interface Scheduler {
  stop(): Promise<void>;
}

export function startScheduler(ctx: ServiceContext): Scheduler {
  const interval = ctx.config.driftInterval;
  if (interval <= 0) return { stop: async () => undefined };
  const tickMs = Math.min(10_000, Math.max(100, Math.floor(interval / 4)));
  let stopped = false;

  async function tick(): Promise<void> {
    while (!stopped) {
      const due = await ctx.store.packages.claimDueChecks(interval, 10);
      if (due.length === 0) return;
      for (const pkg of due) {
        if (stopped) return;
        try {
          const outcome = await runDriftCheck(ctx, pkg, 'scheduled');
          ctx.log.info('drift check', {
            package_id: pkg.packageId,
            account: pkg.account,
            trigger: 'scheduled',
            ...outcome,
          });
        } catch (error) {
          ctx.log.warn('scheduled drift check failed', {
            package_id: pkg.packageId,
            account: pkg.account,
            error: errorMessage(error),
          });
        }
      }
    }
  }

  const ticks = every(tickMs, () =>
    tick().catch((error: unknown) => {
      ctx.log.warn('scheduler tick failed', {
        error: errorMessage(error),
      });
    }),
  );
  return {
    async stop() {
      stopped = true;
      await ticks.stop();
    },
  };
}
