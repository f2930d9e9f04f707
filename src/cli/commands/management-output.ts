// What the management commands share in the CLI: the connection and --format options, and JSON output.
import type { Command } from 'commander';
import { addConnectionOptions } from '../options.js';

export function addManagementOptions(command: Command): Command {
  return addConnectionOptions(command).option('--format <format>', 'text (default) or json, on stdout');
}

/** One JSON document on stdout. JSON.stringify escapes control characters, so service text stays inert. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
