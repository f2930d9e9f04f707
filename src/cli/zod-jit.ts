// zod compiles a parser for each object schema (new Function) on its first parse. A one-shot command parses
// each schema once or twice, so compiling costs more than it saves: zod's share of a 1k-change check went from
// 34 to 22 ms (--cpu-prof, 6 runs each). `tfgate serve` parses request bodies all day and keeps it.
import type { Command } from 'commander';
import * as z from 'zod/mini';

/** The top-level command `action` belongs to (`bundle` for `tfgate bundle verify`). */
function topLevelName(action: Command): string {
  let command = action;
  while (command.parent?.parent) command = command.parent;
  return command.name();
}

/** Before the action loads its schemas: one-shot commands parse without zod's compiled fast path. */
export function configureZodFor(action: Command): void {
  if (topLevelName(action) === 'serve') return;
  z.config({ jitless: true });
}
