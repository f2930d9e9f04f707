// A raw Terraform state (`terraform state pull`, format version 4) read once as a stream: its identity
// (serial, lineage) and its resources as `terraform show -json` lists them, one per instance object (current
// and deposed), with no provider schema needed. Attribute values (secrets) are skipped unread.
// `state pull` reads the backend's state with Terraform's own reader and writes it again, so where Go reads
// JSON differently (case-insensitive keys, a number's integer part) this reads Terraform's rewritten form;
// the `module` field is taken as written (Terraform writes it canonical).
import type { Readable } from 'node:stream';
import { InvalidPlanError } from '../errors/index.js';
import type { ObservedResource, ObservedStateInput } from '../model/index.js';
import { isMode, isNonEmptyString, isString, missingFields, quote, typeName } from './checks.js';
import { instanceKeyString } from './instance-key.js';
import type { StateIdentity } from './read-state.js';
import { type ScanContext, scanStream } from './scan-stream.js';
import { arrayNode, JsonScanner, objectNode, type Problem, valueNode } from './scanner/index.js';

const RAW_STATE_HINT =
  'the backend returned something that is not a Terraform state (version 4, as `terraform state pull` prints it): check its settings';

interface RawInstance {
  index_key?: number | string | null;
  deposed?: string;
  status?: string;
}

interface RawResource {
  module?: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  instances?: RawInstance[];
}

interface RawStateJson extends StateIdentity {
  terraform_version?: string;
  resources?: RawResource[];
}

/** Terraform reads a JSON number as a float64 and keeps its integer part; tfgate takes integers only. */
function isIndexKey(value: unknown): Problem | undefined {
  if (value === null || typeof value === 'string' || Number.isSafeInteger(value)) return undefined;
  return { message: `expected a string or an integer (an instance key), found ${typeName(value)}` };
}

/** Terraform's reader accepts no status but "" (ready) and "tainted"; an instance is listed either way. */
function isStatus(value: unknown): Problem | undefined {
  if (value === '' || value === 'tainted') return undefined;
  return {
    message: `expected "tainted" or "", found ${typeof value === 'string' ? quote(value) : typeName(value)}`,
  };
}

const instanceNode = objectNode(
  'an object (a resource instance)',
  { index_key: valueNode(isIndexKey), deposed: valueNode(isString), status: valueNode(isStatus) },
  {
    skipped: [
      'schema_version',
      'attributes',
      'attributes_flat',
      'sensitive_attributes',
      'private',
      'dependencies',
      'create_before_destroy',
      'identity',
      'identity_schema_version',
    ],
  },
);

const resourceNode = objectNode(
  'an object (a resource)',
  {
    module: valueNode(isString),
    mode: valueNode(isMode),
    type: valueNode(isNonEmptyString),
    name: valueNode(isNonEmptyString),
    instances: arrayNode('an array of resource instances', instanceNode),
  },
  { close: (resource) => missingFields(resource, ['mode', 'type', 'name']), skipped: ['each', 'provider'] },
);

const rawStateNode = objectNode(
  'a JSON object (a raw Terraform state, as `terraform state pull` prints it)',
  {
    version: valueNode((value) =>
      value === 4
        ? undefined
        : {
            message: `unsupported state version ${typeof value === 'number' ? value : typeName(value)}: tfgate reads version 4 (Terraform 0.12 and later, OpenTofu)`,
          },
    ),
    terraform_version: valueNode(isString),
    serial: valueNode((value) =>
      typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
        ? undefined
        : { message: 'expected a non-negative integer' },
    ),
    lineage: valueNode(isString),
    resources: arrayNode('an array of resources', resourceNode),
  },
  {
    close: (state) =>
      'version' in state
        ? missingFields(state, ['serial', 'lineage'])
        : { message: 'missing "version": this is not a raw Terraform state' },
    skipped: ['outputs', 'check_results'],
  },
);

export interface RawStateRead {
  identity: StateIdentity;
  /** The resources, one per instance object, as `terraform show -json` on this state lists them. */
  state: ObservedStateInput;
}

/**
 * Reads a raw state (`terraform state pull`) once: serial, lineage and resources. Addresses are written as
 * Terraform writes them (module path, `data.` for data sources, `[0]` or `["key"]`); a deposed object is
 * listed again under its instance's address, as `show -json` lists it. Listed in the state's order
 * (Terraform's show sorts its own way: compare as sets).
 */
export async function readRawState(
  input: Readable | AsyncIterable<Uint8Array>,
  options: { description?: string } = {},
): Promise<RawStateRead> {
  const context: ScanContext = {
    description: options.description ?? 'the raw state',
    expected: 'a raw Terraform state (terraform state pull)',
    hint: RAW_STATE_HINT,
  };
  const raw = (await scanStream(input, new JsonScanner(rawStateNode), context)) as RawStateJson;
  const resources: ObservedResource[] = [];
  // Terraform refuses a state naming one object twice; so does tfgate (it would count it twice).
  const seen = new Set<string>();
  for (const resource of raw.resources ?? []) {
    const module = resource.module ?? '';
    const base = `${module === '' ? '' : `${module}.`}${resource.mode === 'data' ? 'data.' : ''}${resource.type}.${resource.name}`;
    for (const instance of resource.instances ?? []) {
      const key = instance.index_key ?? undefined;
      const address = key === undefined ? base : `${base}${instanceKeyString(key)}`;
      const deposed = instance.deposed ?? '';
      // Terraform's deposed keys are 8 characters; its reader refuses any other length.
      if (deposed !== '' && Buffer.byteLength(deposed) !== 8)
        throw invalid(context, `${address} has a deposed object with the malformed key ${quote(deposed)}`);
      const id = `${address}\u0000${deposed}`;
      if (seen.has(id))
        throw invalid(
          context,
          `${address}${deposed === '' ? '' : ` (deposed ${quote(deposed)})`} appears more than once`,
        );
      seen.add(id);
      const observed: ObservedResource = {
        address,
        mode: resource.mode,
        type: resource.type,
        name: resource.name,
      };
      if (module !== '') observed.module_address = module;
      resources.push(observed);
    }
  }
  const state: ObservedStateInput =
    raw.terraform_version === undefined
      ? { resources }
      : { terraform_version: raw.terraform_version, resources };
  return { identity: { serial: raw.serial, lineage: raw.lineage }, state };
}

/**
 * Reads what `terraform state pull` printed, or undefined when it holds no state. The one definition of
 * "holds no state", for a backend read (the service's drift checks) and for `tfgate state push`: nothing
 * pulled at all (a backend, or a working directory, with no state), or a state with no lineage (the empty
 * state some backends, http among them, answer). A state whose resources were all destroyed keeps its
 * lineage, so it is read, with no resources.
 */
export async function readPulledState(
  input: Readable | AsyncIterable<Uint8Array>,
  options: { description?: string } = {},
): Promise<RawStateRead | undefined> {
  const chunks = (input as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  let first = await chunks.next();
  while (!first.done && first.value.length === 0) first = await chunks.next();
  if (first.done) return undefined;
  const head = first.value;
  async function* whole(): AsyncGenerator<Uint8Array> {
    yield head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  let read: RawStateRead;
  try {
    read = await readRawState(whole(), options);
  } finally {
    // A refusal stops reading: release the input (a stream's iterator destroys it), so no writer waits on it.
    await chunks.return?.();
  }
  return read.identity.lineage === '' ? undefined : read;
}

function invalid(context: ScanContext, reason: string): InvalidPlanError {
  return new InvalidPlanError(`${context.description} is not ${context.expected}: ${reason}`, {
    hint: context.hint,
    details: { source: context.description },
  });
}
