import type { Readable } from 'node:stream';
import type { PlanInput } from '../model/index.js';

export interface ReadPlanOptions {
  /** Shown in error messages. */
  description?: string;
}

/**
 * Read `terraform show -json` output as a stream and keep only format_version, terraform_version and
 * resource_changes[] (address, mode, type, name, index, module_address, provider_name, deposed,
 * previous_address, change.actions, change.importing). Values never leave this function.
 * Throws InvalidPlanError naming the byte offset or JSON path on bad input, and on unknown actions.
 */
export async function readPlan(
  _input: Readable | AsyncIterable<Uint8Array>,
  _options: ReadPlanOptions = {},
): Promise<PlanInput> {
  throw new Error('readPlan: not implemented yet');
}
