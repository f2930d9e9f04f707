import type { Command } from 'commander';
import { registerBundle } from './bundle.js';
import { registerCheck } from './check.js';
import { registerGate } from './gate.js';
import { registerServe } from './serve.js';

/** Each command file exports a register(program) function; list it here. */
export const COMMAND_REGISTRATIONS: Array<(program: Command) => void> = [registerCheck, registerBundle, registerServe, registerGate];
