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

export interface CommandRegistration {
  /** The top-level command's name, as its register function names it. */
  name: string;
  register: (program: Command) => void;
}

/** Each command file exports a register(program) function; list it here, in the order help shows them. */
export const COMMAND_REGISTRATIONS: readonly CommandRegistration[] = [
  { name: 'check', register: registerCheck },
  { name: 'bundle', register: registerBundle },
  { name: 'serve', register: registerServe },
  { name: 'state', register: registerState },
  { name: 'state-source', register: registerStateSource },
  { name: 'keys', register: registerKeys },
  { name: 'design', register: registerDesign },
  { name: 'findings', register: registerFindings },
  { name: 'audit', register: registerAudit },
  { name: 'accounts', register: registerAccounts },
  { name: 'gate', register: registerGate },
  { name: 'plan', register: registerPlan },
  { name: 'apply', register: registerApply },
  { name: 'run-task', register: registerRunTask },
];
