import type { Command } from 'commander';

/** Each command file exports a register(program) function; list it here. */
export const COMMAND_REGISTRATIONS: Array<(program: Command) => void> = [];
