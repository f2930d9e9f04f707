// The kept values: the frames of kept containers, built as the schema says, with schema problems held back
// until their container closes (a later duplicate key may replace them, as JSON.parse's last one wins).
import { S_COLON } from './bytes.js';
import { type HeldProblem, JsonScanError, keySegment } from './errors.js';
import {
  type ArrayNode,
  type Frame,
  firstProblem,
  GENERIC,
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

  /**
   * ScanOptions.stopAtValueEnd: -1 when not asked; 0 until the root container closes, then the offset just
   * after it.
   */
  protected valueEnd = -1;

  /** The offset just after the root value once it ended, for a scanner told to stop there; else undefined. */
  get valueEndOffset(): number | undefined {
    return this.valueEnd > 0 ? this.valueEnd : undefined;
  }

  /**
   * The kept array being read had its items from here to its end read by another scanner, its closing bracket
   * at offset `closeAt` (see JsonScanner.isBetweenItemsOf): close it there, as if read here, and take up at the
   * byte after it, which the next write() starts with.
   */
  resumeAfterItems(closeAt: number): void {
    this.close(closeAt);
    this.base = closeAt + 1;
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
    if (this.depth === 0 && this.valueEnd === 0) this.valueEnd = at + 1;
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
      else if (parent.problem === undefined) each(value);
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
}
