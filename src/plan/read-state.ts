import type { Readable } from 'node:stream';
import { StateMissingError } from '../errors/index.js';
import type { ObservedResource, ObservedStateInput } from '../model/index.js';
import { isFormatVersion, isMode, isNonEmptyString, isString, missingFields } from './checks.js';
import { type ScanContext, scanStream } from './scan-stream.js';
import { type ArrayNode, arrayNode, JsonScanner, objectNode, SKIP, valueNode } from './scanner/index.js';

export const STATE_HINT =
  'tfgate reads the JSON rendering of a state: run `terraform show -json > state.json` in the configuration directory, with no plan file argument';

interface ModuleJson {
  address?: string;
  resources?: Omit<ObservedResource, 'module_address'>[];
  child_modules?: ModuleJson[];
}

interface StateJson {
  format_version: string;
  terraform_version?: string;
  values?: { root_module?: ModuleJson };
}

const resourceNode = objectNode(
  'an object (a resource)',
  {
    address: valueNode(isNonEmptyString),
    mode: valueNode(isMode),
    type: valueNode(isNonEmptyString),
    name: valueNode(isString),
  },
  {
    close: (resource) => missingFields(resource, ['address', 'mode', 'type', 'name']),
    skipped: [
      'index',
      'provider_name',
      'schema_version',
      'values',
      'sensitive_values',
      'depends_on',
      'tainted',
      'deposed_key',
    ],
  },
);

// Modules nest: child_modules holds modules. The array node is completed once the module node exists.
const childModules = arrayNode('an array of modules', SKIP) as {
  -readonly [K in keyof ArrayNode]: ArrayNode[K];
};
const moduleNode = objectNode('an object (a module)', {
  address: valueNode(isNonEmptyString),
  resources: arrayNode('an array of resources', resourceNode),
  child_modules: childModules,
});
childModules.item = moduleNode;

const stateNode = objectNode(
  'a JSON object (the output of `terraform show -json` on a state)',
  {
    format_version: valueNode(isFormatVersion),
    terraform_version: valueNode(isString),
    values: objectNode('an object (the state values)', { root_module: moduleNode }, { skipped: ['outputs'] }),
  },
  {
    close: (state, seen) => {
      if (!('format_version' in state))
        return { message: 'missing "format_version": this is not `terraform show -json` output' };
      if (seen.has('resource_changes') || seen.has('planned_values'))
        return {
          message:
            'it has "planned_values" or "resource_changes": this is a plan, not a state (run `terraform show -json` without a plan file)',
        };
      return undefined;
    },
    track: ['resource_changes', 'planned_values'],
    skipped: ['checks'],
  },
);

/** How to push a state when `show -json` printed none: where to run it, and what to do after a destroy. */
export const STATE_MISSING_HINT =
  "run `terraform show -json` where the state is: the configuration's directory, after `terraform init`, in the workspace that holds it. If every resource was destroyed, terraform prints this too: run `tfgate state push` there without --state-json, which asks `terraform state pull` whether the state exists and then pushes it with no resources";

/**
 * Read `terraform show -json` on a state (values.root_module with nested child_modules) as a stream,
 * flattening it to resources[] with address, mode, type, name, module_address. Values never leave it.
 * A document without `values.root_module` holds no state and is refused (StateMissingError): terraform
 * prints `{"format_version":"1.0"}` alone where there is no state, and also once every resource was
 * destroyed, so it cannot mean "nothing exists". A state with no resources is `values.root_module` with none.
 */
export async function readObservedState(
  input: Readable | AsyncIterable<Uint8Array>,
  options: { description?: string } = {},
): Promise<ObservedStateInput> {
  const context: ScanContext = {
    description: options.description ?? 'the state JSON',
    expected: 'a Terraform state in JSON',
    hint: STATE_HINT,
  };
  const state = (await scanStream(input, new JsonScanner(stateNode), context)) as StateJson;
  if (state.values?.root_module === undefined) {
    const what = state.values === undefined ? 'it has no "values"' : '"values" has no "root_module"';
    throw new StateMissingError(
      `${context.description} holds no state: ${what}. \`terraform show -json\` prints only {"format_version":"1.0"} where there is no state (a directory never applied, another workspace or backend), and also once every resource has been destroyed, so tfgate never reads it as "nothing exists"`,
      { hint: STATE_MISSING_HINT, details: { source: context.description, path: '$.values.root_module' } },
    );
  }
  const resources = flatten(state.values?.root_module);
  return state.terraform_version === undefined
    ? { format_version: state.format_version, resources }
    : { format_version: state.format_version, terraform_version: state.terraform_version, resources };
}

/** Root module resources first, then each child module depth-first, in document order. */
function flatten(root: ModuleJson | undefined): ObservedResource[] {
  const resources: ObservedResource[] = [];
  const pending: ModuleJson[] = root ? [root] : [];
  while (pending.length > 0) {
    const module = pending.pop()!;
    for (const resource of module.resources ?? []) {
      resources.push(
        module.address === undefined ? resource : { ...resource, module_address: module.address },
      );
    }
    const children = module.child_modules ?? [];
    for (let c = children.length - 1; c >= 0; c--) pending.push(children[c]!);
  }
  return resources;
}

/** Which snapshot a raw state is: terraform's serial (a counter) and lineage (its history's id). */
export interface StateIdentity {
  serial: number;
  lineage: string;
}
