// The blocks of a Terraform JSON-syntax file (.tf.json, and CDKTF's synthesized cdk.tf.json) and the line of
// each one's key, with the construct path CDKTF records beside it (`"//": {"metadata": {"path": ...}}`).
// The file is checked first by the untrusted-JSON reader (bounded, never JSON.parse, no value built), so
// only valid JSON is walked; the walk itself only tracks keys and lines. Arrays are transparent, as Terraform allows a block
// type to hold an array of objects as well as an object.
import { checkUntrustedJson, parseUntrustedJson } from '../json/untrusted.js';
import type { HclBlockStart } from './hcl-blocks.js';

export interface JsonBlockStart extends HclBlockStart {
  /** CDKTF: the construct path from the block's `"//"` metadata. */
  constructPath?: string;
}

/** How many labels each block type has: resource "t" "n", data "t" "n", module "n". */
const LABELS: Readonly<Record<string, number>> = { resource: 2, data: 2, module: 1 };

interface Container {
  kind: 'object' | 'array';
  /** Object keys from the root to this container (arrays add none). */
  path: string[];
  key?: string;
  keyLine?: number;
  expectingKey: boolean;
}

/** Every resource, data and module block of a Terraform JSON file. Throws on invalid JSON (JsonScanError). */
export function findJsonBlocks(text: string, maxBytes: number): JsonBlockStart[] {
  checkUntrustedJson(text, maxBytes);
  const blocks: JsonBlockStart[] = [];
  const byPath = new Map<string, JsonBlockStart>();
  const stack: Container[] = [];
  let line = 1;
  const n = text.length;
  const valuePath = (c: Container | undefined): string[] =>
    c === undefined ? [] : c.kind === 'object' && c.key !== undefined ? [...c.path, c.key] : c.path;
  for (let i = 0; i < n; ) {
    const c = text[i] as string;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    const container = stack[stack.length - 1];
    if (c === '{' || c === '[') {
      stack.push({
        kind: c === '{' ? 'object' : 'array',
        path: valuePath(container),
        expectingKey: c === '{',
      });
      i++;
      continue;
    }
    if (c === '}' || c === ']') {
      stack.pop();
      i++;
      continue;
    }
    if (c === ',') {
      if (container?.kind === 'object') container.expectingKey = true;
      i++;
      continue;
    }
    if (c === ':') {
      if (container) container.expectingKey = false;
      i++;
      continue;
    }
    if (c === '"') {
      let end = i + 1;
      let escaped = false;
      while (text[end] !== '"') {
        if (text[end] === '\\') {
          escaped = true;
          end++;
        }
        end++;
      }
      const raw = text.slice(i, end + 1);
      const value = escaped ? (parseUntrustedJson(raw) as string) : raw.slice(1, -1);
      i = end + 1;
      if (container?.kind === 'object' && container.expectingKey) {
        container.key = value;
        container.keyLine = line;
        const block = blockAt([...container.path, value], line);
        if (block) {
          blocks.push(block);
          byPath.set(blockKey(block), block);
        }
        continue;
      }
      // A value: CDKTF's construct path sits at resource.<type>.<name>["//"].metadata.path.
      const path = valuePath(container);
      if (path.length === 6 && path[3] === '//' && path[4] === 'metadata' && path[5] === 'path') {
        const owner = byPath.get(blockKey({ type: path[0] as string, labels: path.slice(1, 3) }));
        if (owner) owner.constructPath = value;
      } else if (path.length === 5 && path[2] === '//' && path[3] === 'metadata' && path[4] === 'path') {
        const owner = byPath.get(blockKey({ type: path[0] as string, labels: path.slice(1, 2) }));
        if (owner) owner.constructPath = value;
      }
      continue;
    }
    // A number, true, false or null: skip to the next delimiter.
    while (i < n && !/[\s,}\]]/.test(text[i] as string)) i++;
  }
  return blocks;
}

function blockKey(block: { type: string; labels: string[] }): string {
  return JSON.stringify([block.type, ...block.labels]);
}

/** The block whose last label is the key at `path`, if `path` names one (`"//"` comment keys are none). */
function blockAt(path: string[], line: number): JsonBlockStart | undefined {
  const [type, ...labels] = path;
  if (type === undefined || !Object.hasOwn(LABELS, type) || LABELS[type] !== labels.length) return undefined;
  if (labels.includes('//')) return undefined;
  return { type, labels, line };
}
