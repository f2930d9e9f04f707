import type { Command } from 'commander';
import { registerAccounts } from './accounts.js';
import { registerApply } from './apply.js';
import { registerBundle } from './bundle.js';
import { registerCheck } from './check.js';
import { registerDesign } from './design.js';
import { registerAudit, registerFindings } from './findings.js';
import { registerGate } from './gate.js';
import { registerKeys } from './keys.js';
import { registerPlan } from './plan.js';
import { registerRunTask } from './run-task.js';
import { registerServe } from './serve.js';
import { registerState } from './state.js';
import { registerStateSource } from './state-source.js';

/** Each command file exports a register(program) function; list it here. */
export const COMMAND_REGISTRATIONS: Array<(program: Command) => void> = [
  registerCheck,
  registerBundle,
  registerServe,
  registerState,
  registerStateSource,
  registerKeys,
  registerDesign,
  registerFindings,
  registerAudit,
  registerAccounts,
  registerGate,
  registerPlan,
  registerApply,
  registerRunTask,
];
