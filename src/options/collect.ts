// Commander's collector, in a module of its own: the CLI's command wiring needs it at start-up, and the
// option schemas (zod) beside it in common.ts load only with the command that runs.

/** Commander's collector for repeatable options (`--format a --format b`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
