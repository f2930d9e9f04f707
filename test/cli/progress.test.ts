import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration, isInteractive, useColor } from '../../src/cli/progress.js';

function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as Writable & { isTTY: boolean; text: () => string };
  stream.isTTY = isTTY;
  stream.text = () => chunks.join('');
  return stream;
}

function clock(...times: number[]): () => number {
  let i = 0;
  return () => times[Math.min(i++, times.length - 1)]!;
}

describe('progress', () => {
  it('prints plain, uncoloured lines with timings in CI', async () => {
    const stream = sink(true);
    const progress = createProgress({ stream, env: { CI: 'true', NO_COLOR: '1' }, now: clock(0, 1500) });
    expect(await progress.step('terraform plan', async () => 42)).toBe(42);
    expect(stream.text()).toBe('tfgate: ▶ terraform plan\ntfgate: ✔ terraform plan (1.5s)\n');
  });

  it('marks a failed step and rethrows', async () => {
    const stream = sink(false);
    const progress = createProgress({ stream, env: {}, now: clock(0, 20) });
    await expect(
      progress.step('evaluate', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(stream.text()).toContain('tfgate: ✖ evaluate (20ms)');
  });

  it('draws a spinner on a TTY, but not during a live terraform step', async () => {
    const stream = sink(true);
    const progress = createProgress({ stream, env: { NO_COLOR: '1' }, now: clock(0, 5, 10, 15) });
    await progress.step('evaluate', async () => {});
    expect(stream.text().startsWith('\r\u001b[2K⠋ evaluate')).toBe(true);
    expect(stream.text()).toContain('✔ evaluate (');
    const live = sink(true);
    await createProgress({ stream: live, env: { NO_COLOR: '1' } }).step('terraform apply', async () => {}, {
      live: true,
    });
    expect(live.text()).not.toContain('\r');
  });

  it('a notice written while the spinner is drawn replaces the spinner line, never glued to its end', async () => {
    const stream = sink(true);
    const progress = createProgress({ stream, env: { NO_COLOR: '1' }, now: clock(0, 5, 10, 15) });
    await progress.step('evaluate', async () => progress.warn('the service answered HTTP 503'));
    const lines = stream.text().split('\n');
    expect(lines[0]).toBe('\r\u001b[2K⠋ evaluate 5ms\r\u001b[2Kwarning: the service answered HTTP 503');
    // What the terminal shows of that line: the notice alone.
    expect(lines[0]!.split('\r').at(-1)).toBe('\u001b[2Kwarning: the service answered HTTP 503');
  });

  it('respects NO_COLOR and colours only terminals', () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(isInteractive({ isTTY: true }, { CI: 'true' })).toBe(false);
    expect(isInteractive({ isTTY: true }, { CI: 'false' })).toBe(true);
    expect(formatDuration(999)).toBe('999ms');
  });

  it('makes the advisory banner loud', () => {
    const stream = sink(false);
    createProgress({ stream, env: {} }).banner('ADVISORY MODE');
    expect(stream.text().split('\n')[0]).toMatch(/^!{40,}$/);
  });
});
