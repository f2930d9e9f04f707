// One-shot commands parse without zod's compiled fast path (cheaper for a parse or two); serve keeps it.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { configureZodFor } from '../../src/cli/zod-jit.js';

function program() {
  const root = new Command('tfgate');
  const serve = root.command('serve');
  const verify = root.command('bundle').command('verify');
  return { serve, verify };
}

describe('configureZodFor', () => {
  it('leaves the JIT on for serve, and turns it off for a one-shot subcommand', () => {
    const { serve, verify } = program();
    configureZodFor(serve);
    expect(z.config().jitless).not.toBe(true);
    configureZodFor(verify);
    expect(z.config().jitless).toBe(true);
    // The same results with the JIT off: a parse still refuses what it refused.
    expect(z.object({ a: z.string() }).safeParse({ a: 1 }).success).toBe(false);
  });
});
