// The kept values: the frames of kept containers, built as the schema says, with schema problems held back
// until their container closes (a later duplicate key may replace them, as JSON.parse's last one wins).
import { isAscii } from 'node:buffer';
import { BACKSLASH, LONE_SURROGATE, latin1, S_COLON, STR_FIELD, STR_SKIP, STR_VALUE } from './bytes.js';
import { type HeldProblem, JsonScanError, keySegment } from './errors.js';
import {
  type ArrayNode,
  type Frame,
  firstProblem,
  GENERIC,
  MAX_FIELD_KEY_BYTES,
  newFrame,
  type ObjectNode,
  resetFrame,
  type ScannerLimits,
  type SchemaNode,
  SKIP,
  type ValueNode,
} from './schema.js';
import { SkipPath } from './skip-path.js';

const NOTHING_SEEN: ReadonlySet<string> = new Set();

export abstract class KeptValues extends SkipPath {
  private readonly root: SchemaNode;
  protected result: unknown = undefined;
  /** Absolute start offset of the outermost kept ValueNode container, or -1. */
  protected valueStart = -1;

  constructor(root: SchemaNode, limits: Partial<ScannerLimits>) {
    super(limits);
    this.root = root;
  }

  /** Frames by depth, reused: frames[k] is framePool[k] while open. */
  private readonly framePool: Frame[] = [];

  /** Open the frame of a kept container starting at offset `at`. */
  protected openFrame(node: ObjectNode | ArrayNode | ValueNode, isObject: boolean, at: number): void {
    const depth = this.frames.length;
    let frame = this.framePool[depth];
    if (frame === undefined) {
      frame = newFrame(node, isObject, at);
      this.framePool.push(frame);
    } else {
      resetFrame(frame, node, isObject, at);
    }
    this.frames.push(frame);
  }

  /** The schema node for the value starting now. */
  protected nodeHere(): SchemaNode {
    const depth = this.depth;
    if (depth === 0) return this.root;
    if (depth > this.frames.length) return SKIP;
    const frame = this.frames[depth - 1]!;
    if (frame.isObject) return frame.next;
    const node = frame.node;
    return node.kind === 'array' ? node.item : GENERIC;
  }

  protected close(at: number): void {
    const depth = this.depth;
    this.depth = depth - 1;
    if (depth === this.frames.length) {
      const frame = this.frames.pop()!;
      const node = frame.node;
      const value = frame.isObject ? frame.obj! : frame.arr!;
      // A member's or element's problem comes first; the object's own check sees only final members.
      let held = firstProblem(frame);
      if (held === undefined && node.kind !== 'value') {
        const problem = frame.isObject
          ? (node as ObjectNode).close?.(frame.obj!, frame.seen ?? NOTHING_SEEN)
          : (node as ArrayNode).close?.(frame.arr!);
        if (problem) held = { reason: problem.message, offset: frame.start, at: problem.at ?? '' };
      }
      if (held) this.reject(held);
      else this.deliver(value, node, frame.start, at + 1);
      if (node.kind === 'value' && this.valueStart === frame.start) this.valueStart = -1;
    }
    this.st = this.afterValue();
  }

  /**
   * A kept value has a schema problem. Duplicate keys resolve as JSON.parse resolves them (the last one
   * wins), so the problem is held by the parent under the member's key until the parent closes: a later
   * value for the same key replaces it. At the top level there is nothing to wait for.
   */
  protected reject(problem: HeldProblem): void {
    const frames = this.frames;
    if (frames.length === 0)
      throw new JsonScanError(problem.reason, problem.offset, `$${problem.at}`, true, problem.loneSurrogate);
    const parent = frames[frames.length - 1]!;
    if (parent.isObject) {
      const key = parent.key!;
      parent.problems ??= new Map();
      parent.problems.set(key, { ...problem, at: keySegment(key) + problem.at });
      delete parent.obj![key]; // an earlier value of the same key is replaced for JSON.parse too
    } else {
      parent.problem ??= { ...problem, at: `[${parent.index}]${problem.at}` };
    }
  }

  /** The kept value being built must end by `end` within its cap. */
  private checkValueSize(end: number): void {
    if (this.valueStart >= 0 && end - this.valueStart > this.limits.maxValueBytes)
      this.fail(
        `value larger than ${this.limits.maxValueBytes} bytes where a small value is expected`,
        this.valueStart,
      );
  }

  /** A kept value is complete: check it and attach it to its parent. */
  protected deliver(value: unknown, node: SchemaNode, start: number, end: number): void {
    if (node.kind === 'value') {
      this.checkValueSize(end);
      const problem = node.check?.(value);
      if (problem) {
        this.reject({ reason: problem.message, offset: start, at: problem.at ?? '' });
        return;
      }
    }
    const frames = this.frames;
    if (frames.length === 0) {
      this.result = value;
      return;
    }
    const parent = frames[frames.length - 1]!;
    if (parent.isObject) {
      // A key too long to compare is never a field, so it is never delivered; key is always set here.
      const key = parent.key!;
      parent.problems?.delete(key); // a later duplicate replaces an earlier, rejected value
      if (key === '__proto__') {
        // JSON.parse makes "__proto__" an own property; an assignment would set the prototype.
        Object.defineProperty(parent.obj!, key, {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else {
        parent.obj![key] = value;
      }
    } else {
      const each = (parent.node as ArrayNode).each;
      // Once an item is refused the document is, so the items after it are not handed on.
      if (each === undefined) parent.arr!.push(value);
      else if (parent.problem === undefined) {
        // The lane's items first: control leaves the scan.
        this.flushLane();
        each(value);
      }
    }
  }

  /** The key `key` (its opening quote at offset `at`) of a schema object's member. */
  protected setKey(frame: Frame, node: ObjectNode, key: string, next: SchemaNode, at: number): void {
    frame.key = key;
    frame.next = next;
    if (node.track?.has(key) || node.once?.has(key)) {
      frame.seen ??= new Set();
      if (frame.seen.has(key) && node.once?.has(key))
        this.fail(
          `a second ${JSON.stringify(key)} key in the same object: JSON.parse would keep only the last one, and tfgate refuses to guess which one was meant`,
          at,
        );
      frame.seen.add(key);
    }
  }

  protected completeString(text: string | undefined, q: number): void {
    if (!this.strIsKey) {
      this.st = this.afterValue();
      if (text !== undefined) this.deliver(text, this.strNode, this.strStart, this.base + q + 1);
      return;
    }
    this.st = S_COLON;
    const depth = this.depth;
    if (depth !== this.frames.length) return;
    const frame = this.frames[depth - 1]!;
    const node = frame.node;
    if (node.kind !== 'object') {
      // A key of a kept value: the value's size cap counts keys too, so a deep chain of long keys
      // (never delivered until its innermost value ends) cannot grow without bound.
      frame.key = text;
      this.checkValueSize(this.base + q + 1);
      frame.next = GENERIC;
    } else if (text === undefined) {
      frame.key = undefined;
      frame.next = SKIP;
    } else {
      this.setKey(frame, node, text, node.fields.get(text) ?? SKIP, this.strStart);
    }
  }

  /** Kept strings (and keys of schema objects): scanned by scanString, their bytes kept up to a cap. */
  protected captureString(buf: Buffer, i: number): number {
    const start = i;
    const q = this.scanString(buf, i);
    const end = q < 0 ? buf.length : q;
    const len = this.strLen + (end - start);
    if (len > (this.strMode === STR_FIELD ? MAX_FIELD_KEY_BYTES : this.limits.maxStringBytes)) {
      if (this.strMode !== STR_FIELD)
        this.fail(
          `string longer than ${this.limits.maxStringBytes} bytes where a short value is expected`,
          this.strStart,
        );
      // Too long to unescape to any field name: not a field, so the rest is skipped (still validated).
      this.strMode = STR_SKIP;
      this.strParts = [];
      if (q < 0) return -1;
      this.completeString(undefined, q);
      return q + 1;
    }
    this.strLen = len;
    if (q < 0) {
      // A copy: the caller may reuse the chunk's memory.
      if (end > start) this.strParts.push(Buffer.from(buf.subarray(start, end)));
      return -1;
    }
    const parts = this.strParts;
    let bytes: Buffer;
    if (parts.length === 0) {
      bytes = buf.subarray(start, q);
    } else {
      parts.push(buf.subarray(start, q));
      bytes = Buffer.concat(parts, len);
      this.strParts = [];
    }
    this.finishCaptured(bytes, q);
    return q + 1;
  }

  /** Decode a captured string body (valid UTF-8 with valid escapes: both were checked while scanning). */
  private finishCaptured(bytes: Buffer, q: number): void {
    let text = isAscii(bytes) ? latin1(bytes, 0, bytes.length) : bytes.toString('utf8');
    if (bytes.includes(BACKSLASH)) {
      text = JSON.parse(`"${text}"`) as string;
      // JSON.parse keeps a lone surrogate; Go (OPA) reads it as U+FFFD. A kept string must read the same,
      // so it is a problem of the value (held back like the others: a later duplicate may replace it).
      const lone = this.strMode === STR_FIELD ? null : LONE_SURROGATE.exec(text);
      if (lone) {
        const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
        const problem: HeldProblem = {
          reason: `an unpaired surrogate (U+${unit}, a \\u escape for half of a UTF-16 pair) where tfgate reads a value (OPA would read U+FFFD there, JSON.parse would keep it)`,
          offset: this.strStart,
          at: '',
          loneSurrogate: unit,
        };
        if (this.strMode === STR_VALUE) {
          this.reject(problem);
          this.completeString(undefined, q);
          return;
        }
        // A key of a kept generic object: the object is refused whatever the key's value.
        this.frames[this.frames.length - 1]!.problem ??= problem;
      }
    }
    this.completeString(text, q);
  }
}
