import type { Readable } from 'node:stream';
import type { ObservedStateInput } from '../model/index.js';

/**
 * Read `terraform show -json` on a state (values.root_module with nested child_modules) as a stream,
 * flattening it to resources[] with address, mode, type, name, module_address. Values never leave it.
 */
export async function readObservedState(
  _input: Readable | AsyncIterable<Uint8Array>,
  _options: { description?: string } = {},
): Promise<ObservedStateInput> {
  throw new Error('readObservedState: not implemented yet');
}
