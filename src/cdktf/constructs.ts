// Duck typing for the construct tree of CDKTF 0.21 and CDK Terrain (cdktn): tfgate imports neither toolkit,
// so these structural types cover exactly what the aspect touches. Both toolkits brand their classes with
// the same global symbols (Symbol.for('cdktf/...')), which is what the checks below rely on first.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

/** constructs' IValidation. */
export interface ValidationLike {
  validate(): string[];
}

/** The part of constructs' Node that the aspect uses. */
export interface NodeLike {
  readonly id: string;
  readonly path: string;
  readonly scope?: ConstructLike | undefined;
  readonly children: readonly ConstructLike[];
  readonly root: ConstructLike;
  findAll(): ConstructLike[];
  addValidation(validation: ValidationLike): void;
  // biome-ignore lint/suspicious/noExplicitAny: mirrors constructs' own signature so any Node is assignable.
  addMetadata(type: string, data: any, options?: { stackTrace?: boolean }): void;
  // biome-ignore lint/suspicious/noExplicitAny: mirrors constructs' own signature.
  tryGetContext(key: string): any;
}

/** Any construct (constructs' IConstruct), from either toolkit. */
export interface ConstructLike {
  readonly node: NodeLike;
}

/** A TerraformResource (managed resource), seen structurally. */
export interface TerraformResourceLike extends ConstructLike {
  readonly terraformResourceType: string;
  readonly friendlyUniqueId: string;
}

/** A TerraformStack, seen structurally. */
export interface TerraformStackLike extends ConstructLike {
  readonly synthesizer: unknown;
  toTerraform(): unknown;
  addOverride(path: string, value: unknown): void;
}

/** The toolkit's `Aspects` class: `Aspects.of(scope).add(aspect)`. */
export interface AspectsApi {
  of(scope: ConstructLike): {
    add(aspect: { visit(node: ConstructLike): void }): void;
    readonly all: unknown[];
  };
}

const STACK_SYMBOL = Symbol.for('cdktf/TerraformStack');
const RESOURCE_SYMBOL = Symbol.for('cdktf/TerraformResource');
const DATA_SOURCE_SYMBOL = Symbol.for('cdktf/TerraformDataSource');
const EPHEMERAL_SYMBOL = Symbol.for('cdktf/TerraformEphemeralResource');
const JSII_RTTI = Symbol.for('jsii.rtti');

/** The warning annotation both toolkits collect into the manifest and print (Annotations.of(x).addWarning). */
const ANNOTATION_WARN = '@cdktf/warn';

function isObject(value: unknown): value is Record<PropertyKey, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isConstruct(value: unknown): value is ConstructLike {
  return (
    isObject(value) &&
    isObject(value.node) &&
    typeof (value.node as Record<string, unknown>).path === 'string' &&
    typeof (value.node as Record<string, unknown>).addValidation === 'function'
  );
}

/** What a value given in place of a construct or an aspect is, for an error: "undefined", "a string". */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object that is not one';
  return `${/^[aeiou]/.test(typeof value) ? 'an' : 'a'} ${typeof value}`;
}

export function isTerraformStack(value: unknown): value is TerraformStackLike {
  if (!isConstruct(value)) return false;
  if (STACK_SYMBOL in value) return true;
  // Without the brand: a stack is the construct that synthesizes itself.
  const v = value as unknown as Record<string, unknown>;
  return (
    isObject(v.synthesizer) && typeof v.toTerraform === 'function' && typeof v.addOverride === 'function'
  );
}

/** A managed resource; data sources, ephemeral resources, providers and modules are not. */
export function isTerraformResource(value: unknown): value is TerraformResourceLike {
  if (!isConstruct(value)) return false;
  const v = value as unknown as Record<PropertyKey, unknown>;
  if (typeof v.terraformResourceType !== 'string') return false;
  if (RESOURCE_SYMBOL in v) return true;
  if (DATA_SOURCE_SYMBOL in v || EPHEMERAL_SYMBOL in v) return false;
  // Without the brand: only managed resources can be imported or moved.
  return typeof v.importFrom === 'function' && typeof v.moveTo === 'function' && 'friendlyUniqueId' in v;
}

/** The nearest enclosing stack (the construct itself when it is one). */
export function stackOf(construct: ConstructLike): TerraformStackLike | undefined {
  let current: ConstructLike | undefined = construct;
  while (current) {
    if (isTerraformStack(current)) return current;
    current = current.node.scope;
  }
  return undefined;
}

/** Every stack at or under `scope`, in synthesis order (the tree's pre-order, as App.synth uses). */
export function stacksUnder(scope: ConstructLike): TerraformStackLike[] {
  return scope.node.findAll().filter(isTerraformStack);
}

/** The App at the root of the tree, when it is one: its outdir and settings. */
export interface AppLike {
  readonly outdir: string;
  readonly hclOutput: boolean;
  readonly skipValidation: boolean;
}

export function appOf(construct: ConstructLike): AppLike | undefined {
  const root = construct.node.root as unknown as Record<string, unknown>;
  if (typeof root.outdir !== 'string' || !isObject(root.manifest)) return undefined;
  return {
    outdir: resolve(root.outdir),
    hclOutput: root.hclOutput === true,
    skipValidation: root.skipValidation === true,
  };
}

/** Annotations.of(node).addWarning, without the toolkit: the same metadata entry the toolkit writes. */
export function addWarning(construct: ConstructLike, message: string): void {
  construct.node.addMetadata(ANNOTATION_WARN, message, { stackTrace: false });
}

/** The jsii names of the classes a construct is an instance of, e.g. "cdktf.TerraformStack". */
function jsiiClassNames(value: object): string[] {
  const names: string[] = [];
  for (let proto = Object.getPrototypeOf(value); proto; proto = Object.getPrototypeOf(proto)) {
    const rtti = (proto.constructor as Record<PropertyKey, unknown> | undefined)?.[JSII_RTTI];
    if (isObject(rtti) && typeof rtti.fqn === 'string') names.push(rtti.fqn);
  }
  return names;
}

function prototypeConstructors(value: object): unknown[] {
  const ctors: unknown[] = [];
  for (let proto = Object.getPrototypeOf(value); proto; proto = Object.getPrototypeOf(proto)) {
    ctors.push(proto.constructor);
  }
  return ctors;
}

function asAspectsModule(exports: unknown, stackClasses: unknown[]): AspectsApi | undefined {
  if (!isObject(exports)) return undefined;
  const aspects = exports.Aspects as Record<string, unknown> | undefined;
  if (!isObject(aspects) && typeof aspects !== 'function') return undefined;
  if (typeof aspects?.of !== 'function') return undefined;
  return stackClasses.includes(exports.TerraformStack) ? (aspects as unknown as AspectsApi) : undefined;
}

/**
 * Find the `Aspects` class of the very toolkit copy the stack was built with. Aspects are stored under a
 * private per-copy symbol, so only that copy's class can attach one: it is looked up among the loaded
 * CommonJS modules (both toolkits ship as CommonJS), then resolved from the working directory.
 */
export function findToolkitAspects(stack: TerraformStackLike): AspectsApi | undefined {
  const stackClasses = prototypeConstructors(stack);
  const require = createRequire(import.meta.url);
  for (const module of Object.values(require.cache)) {
    try {
      const found = asAspectsModule(module?.exports, stackClasses);
      if (found) return found;
    } catch {
      // An exports object whose getters throw is not a toolkit.
    }
  }
  const toolkits = new Set(jsiiClassNames(stack).map((fqn) => fqn.split('.')[0] ?? ''));
  for (const name of [...toolkits, 'cdktf', 'cdktn']) {
    if (!/^[a-z][a-z0-9-]*$/.test(name)) continue;
    try {
      const fromCwd = createRequire(resolve(process.cwd(), 'package.json'));
      const found = asAspectsModule(fromCwd(name), stackClasses);
      if (found) return found;
    } catch {
      // Not installed there: try the next candidate.
    }
  }
  return undefined;
}
