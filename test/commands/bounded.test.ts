// The many-plan check's bound: at most `concurrency` plans at once and at most `budget` bytes of them in flight;
// a plan larger than the whole budget still runs (alone); results keep the input's order.
import { describe, expect, it } from 'vitest';
import { mapWithinBound } from '../../src/commands/bounded.js';

function tracker() {
  let running = 0;
  let inFlight = 0;
  const peak = { running: 0, inFlight: 0 };
  const task = async (item: { id: number; cost: number }) => {
    running++;
    inFlight += item.cost;
    peak.running = Math.max(peak.running, running);
    peak.inFlight = Math.max(peak.inFlight, inFlight);
    await new Promise((r) => setTimeout(r, 1 + (item.id % 3)));
    running--;
    inFlight -= item.cost;
    return item.id;
  };
  return { task, peak };
}

describe('mapWithinBound', () => {
  it('keeps concurrency and the budget, and the order of the results', async () => {
    const items = Array.from({ length: 40 }, (_, id) => ({ id, cost: 10 + (id % 5) * 10 }));
    const { task, peak } = tracker();
    const results = await mapWithinBound(items, { concurrency: 4, budget: 100 }, (i) => i.cost, task);
    expect(results).toEqual(items.map((i) => i.id));
    expect(peak.running).toBeLessThanOrEqual(4);
    expect(peak.running).toBeGreaterThan(1);
    expect(peak.inFlight).toBeLessThanOrEqual(100);
  });

  it('runs a task costlier than the whole budget, alone', async () => {
    const items = [
      { id: 0, cost: 10 },
      { id: 1, cost: 1_000 },
      { id: 2, cost: 10 },
    ];
    const { task, peak } = tracker();
    expect(await mapWithinBound(items, { concurrency: 3, budget: 100 }, (i) => i.cost, task)).toEqual([
      0, 1, 2,
    ]);
    expect(peak.inFlight).toBeLessThanOrEqual(1_000);
  });

  it('a failing task rejects the whole map (the check turns each root failure into data first)', async () => {
    await expect(
      mapWithinBound(
        [1, 2, 3],
        { concurrency: 2, budget: 10 },
        () => 1,
        async (n) => {
          if (n === 2) throw new Error('boom');
          return n;
        },
      ),
    ).rejects.toThrow('boom');
  });

  it('an empty list is an empty result', async () => {
    expect(
      await mapWithinBound(
        [],
        { concurrency: 2, budget: 10 },
        () => 1,
        async () => 1,
      ),
    ).toEqual([]);
  });
});
