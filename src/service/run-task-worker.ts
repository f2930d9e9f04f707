// Run tasks in the background. A task this instance accepted is worked on at once; every instance also polls
// for tasks whose lease ran out (their instance stopped or was killed) and claims them in the database
// (claimStale: FOR UPDATE SKIP LOCKED), so each task is worked on by one instance at a time and none is lost.

import { errorMessage } from '../errors/index.js';
import type { ServiceContext } from './core/context.js';
import { onRunTaskAccepted, workOnRunTask } from './core/run-task/index.js';
import { every } from './every.js';
import type { RunTaskRecord } from './store/index.js';

export interface RunTaskWorker {
  stop(): Promise<void>;
}

export function startRunTaskWorker(ctx: ServiceContext): RunTaskWorker {
  const abort = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const lease = ctx.config.runTaskLease;
  const tickMs = Math.min(5_000, Math.max(200, Math.floor(lease / 4)));

  function work(task: RunTaskRecord): void {
    if (abort.signal.aborted) return;
    const fields = {
      task_result_id: task.taskResultId,
      run_id: task.runId,
      workspace: task.workspaceName,
      organization: task.organizationName,
      stage: task.stage,
    };
    const running = workOnRunTask(ctx, task, { signal: abort.signal })
      .then((outcome) => ctx.log.info('run task', { ...fields, ...outcome }))
      .catch(async (error: unknown) => {
        // Left pending: once its lease runs out, it is claimed again; on a graceful stop, at once.
        if (abort.signal.aborted) {
          await ctx.store.runTasks.release(task.taskResultId, ctx.instanceId, 0).catch(() => undefined);
        } else {
          ctx.log.warn('run task failed; it will be taken up again', {
            ...fields,
            error: errorMessage(error),
          });
        }
      })
      .finally(() => inFlight.delete(running));
    inFlight.add(running);
  }

  onRunTaskAccepted(ctx, work);
  const polls = every(tickMs, async () => {
    if (inFlight.size >= 16) return;
    try {
      for (const task of await ctx.store.runTasks.claimStale(ctx.instanceId, lease, 16 - inFlight.size)) {
        work(task);
      }
    } catch (error) {
      if (!abort.signal.aborted) {
        ctx.log.warn('run task poll failed', {
          error: errorMessage(error),
        });
      }
    }
  });
  return {
    async stop() {
      const polled = polls.stop();
      abort.abort(new Error('the service is stopping'));
      await polled;
      await Promise.allSettled([...inFlight]);
    },
  };
}
