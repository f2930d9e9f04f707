// Run tasks in parallel within a bound: at most `concurrency` at once, and at most `budget` of their cost
// (bytes a plan may hold while read) in flight. A task costlier than the whole budget runs alone, never not
// at all. Results keep the input's order.

export interface Bound {
  concurrency: number;
  budget: number;
}

export async function mapWithinBound<T, R>(
  items: readonly T[],
  bound: Bound,
  cost: (item: T) => number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let running = 0;
  let inFlight = 0;
  return new Promise<R[]>((resolveAll, rejectAll) => {
    let failed = false;
    const pump = () => {
      if (failed) return;
      if (next === items.length && running === 0) {
        resolveAll(results);
        return;
      }
      while (next < items.length && running < bound.concurrency) {
        const index = next;
        const item = items[index] as T;
        const itemCost = Math.min(cost(item), bound.budget);
        // Wait for room, unless nothing runs (then even the costliest goes, alone).
        if (running > 0 && inFlight + itemCost > bound.budget) break;
        next++;
        running++;
        inFlight += itemCost;
        task(item).then(
          (result) => {
            results[index] = result;
            running--;
            inFlight -= itemCost;
            pump();
          },
          (error: unknown) => {
            failed = true;
            rejectAll(error);
          },
        );
      }
    };
    pump();
  });
}
