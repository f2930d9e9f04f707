// What a scan keeps: the schema nodes (object fields descended into, arrays, small values kept whole,
// everything else skipped), the resource limits, and the frame of a kept container being built.
import type { HeldProblem } from './errors.js';

/** A problem found by a schema check: what was expected, and optionally a path suffix such as `[1]`. */
export interface Problem {
  message: string;
  at?: string;
}

export interface SkipNode {
  readonly kind: 'skip';
}
/** An object whose listed fields are descended into; every other field is skipped. */
export interface ObjectNode {
  readonly kind: 'object';
  /** Used in messages: "expected <what>". */
  readonly what: string;
  readonly fields: ReadonlyMap<string, SchemaNode>;
  /**
   * fields plus well-known skipped names, as bytes, by length (byLength[n] holds the names of n bytes): keys
   * are matched without allocating a string, and compared with the few names of their length only.
   */
  readonly byLength: readonly (readonly FieldName[])[];
  /** Fields (kept or skipped) whose presence close() is told about. */
  readonly track?: ReadonlySet<string>;
  /** Fields refused when they appear twice (JSON.parse would keep the last one). */
  readonly once?: ReadonlySet<string>;
  readonly close?: (value: Record<string, unknown>, seen: ReadonlySet<string>) => Problem | undefined;
}

export interface FieldName {
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly node: SchemaNode;
}
export interface ArrayNode {
  readonly kind: 'array';
  readonly what: string;
  readonly item: SchemaNode;
  readonly close?: (value: unknown[]) => Problem | undefined;
  /**
   * Items (checked, in order) are handed to `each` as they complete instead of being kept: the array's
   * value stays empty, and close() sees it empty.
   */
  readonly each?: (item: unknown) => void;
}
/** A value materialized whole (small by contract: strings and the whole value are capped). */
export interface ValueNode {
  readonly kind: 'value';
  readonly check?: (value: unknown) => Problem | undefined;
}
export type SchemaNode = SkipNode | ObjectNode | ArrayNode | ValueNode;

/**
 * Every node has every field, in one order: one hidden class, so the scanner's reads of `node.kind` and the
 * rest stay monomorphic (mixed shapes made them megamorphic, measured on the plan-reader benchmark).
 */
interface AnyNode {
  kind: SchemaNode['kind'];
  what: string;
  fields: ReadonlyMap<string, SchemaNode> | undefined;
  byLength: readonly (readonly FieldName[])[] | undefined;
  track: ReadonlySet<string> | undefined;
  once: ReadonlySet<string> | undefined;
  close: ((value: never, seen: ReadonlySet<string>) => Problem | undefined) | undefined;
  item: SchemaNode | undefined;
  each: ((item: unknown) => void) | undefined;
  check: ((value: unknown) => Problem | undefined) | undefined;
}

function makeNode(kind: SchemaNode['kind'], what: string): AnyNode {
  return {
    kind,
    what,
    fields: undefined,
    byLength: undefined,
    track: undefined,
    once: undefined,
    close: undefined,
    item: undefined,
    each: undefined,
    check: undefined,
  };
}

export const SKIP: SkipNode = makeNode('skip', 'anything') as SkipNode;
/** The node of everything inside a kept value. */
export const GENERIC: ValueNode = makeNode('value', 'a value') as ValueNode;

export interface ObjectNodeOptions {
  close?: (value: Record<string, unknown>, seen: ReadonlySet<string>) => Problem | undefined;
  /** Fields whose presence close() is told about, kept or not. */
  track?: readonly string[];
  /** Names usually present and skipped: matched without allocation, and named in error paths. */
  skipped?: readonly string[];
  /**
   * Fields that may appear only once: a second one is refused at once (JSON.parse keeps the last, so a
   * field whose items were already handed on by ArrayNode.each could not be honoured).
   */
  once?: readonly string[];
}

export function objectNode(
  what: string,
  fields: Record<string, SchemaNode>,
  options: ObjectNodeOptions = {},
): ObjectNode {
  const map = new Map(Object.entries(fields));
  for (const name of [
    ...map.keys(),
    ...(options.skipped ?? []),
    ...(options.track ?? []),
    ...(options.once ?? []),
  ]) {
    if (name.length > MAX_FIELD_NAME || !/^[\x20-\x7e]*$/.test(name))
      throw new Error(
        `field name ${JSON.stringify(name)}: at most ${MAX_FIELD_NAME} printable ASCII characters`,
      );
  }
  const names: FieldName[] = [...map].map(([name, node]) => ({ bytes: Buffer.from(name), name, node }));
  for (const name of options.skipped ?? []) {
    if (!map.has(name)) names.push({ bytes: Buffer.from(name), name, node: SKIP });
  }
  const node = makeNode('object', what);
  node.fields = map;
  const byLength: FieldName[][] = Array.from({ length: MAX_FIELD_NAME + 1 }, () => []);
  for (const field of names) byLength[field.bytes.length]!.push(field);
  node.byLength = byLength;
  if (options.close) node.close = options.close as AnyNode['close'];
  if (options.track) node.track = new Set(options.track);
  if (options.once) node.once = new Set(options.once);
  return node as ObjectNode;
}

export function arrayNode(
  what: string,
  item: SchemaNode,
  close?: (value: unknown[]) => Problem | undefined,
  each?: (item: unknown) => void,
): ArrayNode {
  const node = makeNode('array', what);
  node.item = item;
  if (close) node.close = close as AnyNode['close'];
  if (each) node.each = each;
  return node as ArrayNode;
}

export function valueNode(check?: (value: unknown) => Problem | undefined): ValueNode {
  const node = makeNode('value', 'a value');
  if (check) node.check = check;
  return node as ValueNode;
}

/** The field of `byLength` whose bytes are buf[start, end), matched without allocating a string. */
export function matchName(
  byLength: readonly (readonly FieldName[])[],
  buf: Buffer,
  start: number,
  end: number,
): FieldName | undefined {
  const len = end - start;
  const names = byLength[len];
  if (names === undefined) return undefined;
  outer: for (let f = 0; f < names.length; f++) {
    const field = names[f]!;
    const bytes = field.bytes;
    for (let k = 0; k < len; k++) if (bytes[k] !== buf[start + k]) continue outer;
    return field;
  }
  return undefined;
}

export interface ScannerLimits {
  /** Longest kept string, in bytes. */
  maxStringBytes: number;
  /** Largest kept value (e.g. change.importing), in bytes of JSON text. */
  maxValueBytes: number;
  /** Deepest nesting accepted anywhere, kept or skipped. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: ScannerLimits = {
  maxStringBytes: 1024 * 1024,
  maxValueBytes: 1024 * 1024,
  maxDepth: 10_000,
};

/** Longest kept number, in characters (a count index or a number inside a kept value). */
export const MAX_NUMBER_CHARS = 1024;

/** Longest field name of a schema object (objectNode checks), plus slack. */
export const MAX_FIELD_NAME = 64;
/**
 * A key of a schema object longer than this, in raw bytes, cannot unescape to a field name (they are
 * printable ASCII, 6 bytes at most each, as in `\u0061`), so it is skipped without being kept.
 */
export const MAX_FIELD_KEY_BYTES = 6 * MAX_FIELD_NAME;

/** A kept container being built. Frames are reused per depth (resetFrame): none is held after it closes. */
export interface Frame {
  node: ObjectNode | ArrayNode | ValueNode;
  isObject: boolean;
  obj: Record<string, unknown> | undefined;
  arr: unknown[] | undefined;
  start: number;
  /** Current member key (objects); undefined when not read (too long to be a field). */
  key: string | undefined;
  /** Index of the element being read (arrays). */
  index: number;
  /** Schema node of the value after the current key (objects). */
  next: SchemaNode;
  /** Tracked and once-only keys seen so far (ObjectNode.track, ObjectNode.once). */
  seen: Set<string> | undefined;
  /** Held-back schema problems of members, by key (objects): a later duplicate key may replace them. */
  problems: Map<string, HeldProblem> | undefined;
  /** The first problem nothing can replace: an element's (arrays), a key's (kept generic objects). */
  problem: HeldProblem | undefined;
}

export function newFrame(node: ObjectNode | ArrayNode | ValueNode, isObject: boolean, start: number): Frame {
  return {
    node,
    isObject,
    obj: isObject ? {} : undefined,
    arr: isObject ? undefined : [],
    start,
    key: undefined,
    index: 0,
    next: SKIP,
    seen: undefined,
    problems: undefined,
    problem: undefined,
  };
}

/** Make `frame` a new frame, as newFrame would (one allocation less per kept container). */
export function resetFrame(
  frame: Frame,
  node: ObjectNode | ArrayNode | ValueNode,
  isObject: boolean,
  start: number,
): void {
  frame.node = node;
  frame.isObject = isObject;
  frame.obj = isObject ? {} : undefined;
  frame.arr = isObject ? undefined : [];
  frame.start = start;
  frame.key = undefined;
  frame.index = 0;
  frame.next = SKIP;
  frame.seen = undefined;
  frame.problems = undefined;
  frame.problem = undefined;
}

/** The frame's held-back problem that comes first in the document. */
export function firstProblem(frame: Frame): HeldProblem | undefined {
  let first = frame.problem;
  if (frame.problems === undefined) return first;
  for (const held of frame.problems.values()) if (!first || held.offset < first.offset) first = held;
  return first;
}
