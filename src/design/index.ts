// The approved design document (YAML or JSON), validated with zod. See the contract's "Approved design document".

import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { knownKinds } from '../catalog/index.js';
import { closest } from '../errors/closest.js';
import { UsageError } from '../errors/index.js';
import { plainIssueMessage } from '../errors/options.js';
import { nounFor } from '../errors/plural.js';
import { shownPath, withShownPath } from '../errors/shown.js';
import { readFileWithin } from '../fs/read-within.js';
import * as z from '../schemas/zod.js';
import { lineNestedDeeperThan, MAX_DESIGN_NESTING } from './nesting.js';

export const PACKAGE_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
// Terraform resource type names and kind names: lowercase words joined by underscores.
const TYPE_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
const KIND_PATTERN = /^[a-z][a-z0-9_]*$/;

const capabilitySchema = z.strictObject({
  name: z.string().check(z.minLength(1, 'must be a non-empty string')),
  depends_on: z.array(
    z
      .string()
      .check(
        z.minLength(1, 'must be a non-empty resource address'),
        z.regex(
          /^\S+$/,
          'must be a resource address without spaces, e.g. aws_db_instance.ledger or module.queue.*',
        ),
      ),
  ),
});

export const designSchema = z
  .strictObject({
    package_id: z
      .string()
      .check(
        z.regex(
          PACKAGE_ID_PATTERN,
          'must match [a-z0-9][a-z0-9._-]{0,62}: a lowercase letter or digit, then up to 62 of a-z 0-9 . _ -',
        ),
      ),
    name: z.optional(z.string()),
    sanctioned_kinds: z.array(
      z.string().check(z.regex(KIND_PATTERN, 'must be a kind name such as object_storage')),
    ),
    capabilities: z._default(z.array(capabilitySchema), []),
    catalog: z._default(
      z.record(
        z
          .string()
          .check(z.regex(TYPE_NAME_PATTERN, 'must be a Terraform resource type such as aws_s3_bucket')),
        z.string().check(z.regex(KIND_PATTERN, 'must be a kind name such as object_storage')),
      ),
      {},
    ),
  })
  .check(
    z.superRefine((design, ctx) => {
      // Typo protection: a misspelt kind would silently sanction nothing.
      const kinds = knownKinds(design);
      design.sanctioned_kinds.forEach((kind, index) => {
        if (!kinds.has(kind)) {
          const near = closest(kind, [...kinds]);
          ctx.addIssue({
            code: 'custom',
            path: ['sanctioned_kinds', index],
            message: `unknown kind "${kind}"${near ? ` (did you mean "${near}"?)` : ''}; a new kind needs a catalog entry mapping a resource type to it`,
          });
        }
      });
      const seen = new Map<string, number>();
      design.capabilities.forEach((capability, index) => {
        const first = seen.get(capability.name);
        if (first !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['capabilities', index, 'name'],
            message: `duplicate capability name "${capability.name}" (also capabilities[${first}])`,
          });
        } else {
          seen.set(capability.name, index);
        }
      });
    }),
  );

export type Design = z.infer<typeof designSchema>;

const FIELDS_BY_DEPTH: Record<string, readonly string[]> = {
  '': ['package_id', 'name', 'sanctioned_kinds', 'capabilities', 'catalog'],
  capabilities: ['name', 'depends_on'],
};

/** Where a design parsed from text without a name is said to be: `<design>:3: ...`. */
const DESIGN_TEXT_SOURCE = '<design>';

/**
 * Parse a design from YAML or JSON text. Throws UsageError naming the source (a file name; `<design>` when
 * none is given), the field path and the line.
 */
export function parseDesign(text: string, source: string = DESIGN_TEXT_SOURCE): Design {
  if (typeof text !== 'string') {
    throw new UsageError(
      'invalid_design',
      `${source}: parseDesign takes the design's text (YAML or JSON), not ${text === null ? 'null' : text === undefined ? 'undefined' : `a value of type ${Array.isArray(text) ? 'array' : typeof text}`}`,
      {
        hint: 'pass the text of a design document; for a design object use validateDesign(object), for a file loadDesign(path)',
        details: { source },
      },
    );
  }
  const deepAt = lineNestedDeeperThan(text);
  if (deepAt !== undefined) {
    throw new UsageError(
      'invalid_design',
      `${source}:${deepAt}: the design nests deeper than ${MAX_DESIGN_NESTING} levels`,
      {
        hint: 'a design is a few levels deep: package_id, sanctioned_kinds, capabilities with depends_on, catalog; see the README ("The approved design")',
        details: { source, line: deepAt },
      },
    );
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const syntaxError = doc.errors[0];
  if (syntaxError) {
    const line = syntaxError.linePos?.[0]?.line;
    const what =
      syntaxError.code === 'DUPLICATE_KEY'
        ? 'a key is given twice in one mapping'
        : (syntaxError.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? 'syntax error');
    throw new UsageError(
      'invalid_design',
      `${source}${line ? `:${line}` : ''}: not valid YAML or JSON: ${what}`,
      {
        hint: 'fix the syntax; the design format is described in the README ("The approved design")',
        details: { source, ...(line ? { line } : {}) },
      },
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new UsageError('invalid_design', `${source}: cannot read the design: ${(error as Error).message}`);
  }
  if (value === null || value === undefined) {
    throw new UsageError('invalid_design', `${source}: the design is empty`, {
      hint: 'a design needs at least package_id and sanctioned_kinds',
    });
  }
  return checkDesign(value, source, (path) => lineOf(doc, lineCounter, path));
}

/**
 * Validate a design given as an object (a library caller's, or the aspect's): the same checks and words as
 * a design file, without line numbers. Throws UsageError `invalid_design` naming `source` and the field.
 */
export function validateDesign(value: unknown, source = 'the design'): Design {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(
      'invalid_design',
      `${source}: must be an object with package_id and sanctioned_kinds`,
      {
        hint: 'the design format is described in the README ("The approved design")',
        details: { source },
      },
    );
  }
  return checkDesign(value, source, () => undefined);
}

function checkDesign(
  value: unknown,
  source: string,
  lineAt: (path: readonly PropertyKey[]) => number | undefined,
): Design {
  // Our schema's own messages win; plainIssueMessage words the rest ("must be an array", "is required").
  const result = designSchema.safeParse(value, { error: plainIssueMessage });
  if (result.success) return result.data;

  // An unknown field first: a misspelt key also makes the intended one look missing.
  const issues = result.error.issues;
  const issue = (issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]) as z.core.$ZodIssue;
  let path: PropertyKey[] = issue.path;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] as string;
    path = [...issue.path, key];
    const allowed = FIELDS_BY_DEPTH[issue.path.length === 0 ? '' : String(issue.path[0])] ?? [];
    const near = closest(key, allowed);
    message = `unknown field${near ? ` (did you mean "${near}"?)` : ''}; allowed here: ${allowed.join(', ')}`;
  }
  const line = lineAt(path);
  const field = formatPath(path) || '(document)';
  const others = issues.length - 1;
  const more = others > 0 ? ` (and ${others} more ${nounFor(others, 'problem')})` : '';
  throw new UsageError('invalid_design', `${source}${line ? `:${line}` : ''}: ${field}: ${message}${more}`, {
    hint: 'the design format is described in the README ("The approved design")',
    details: { source, field, ...(line ? { line } : {}) },
  });
}

/** A design is a short document; the service accepts up to the same size. */
export const MAX_DESIGN_BYTES = 1024 * 1024;

/**
 * Read a design file, bounded while reading (a huge file or a device never fills memory), as UTF-8
 * (invalid bytes are refused, not replaced), and parse it. The text is what the service is sent.
 */
export async function readDesignFile(path: string): Promise<{ text: string; design: Design }> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readFileWithin(path, MAX_DESIGN_BYTES);
  } catch (error) {
    throw new UsageError(
      'design_not_found',
      `cannot read the design file ${shownPath(path)}: ${withShownPath((error as Error).message, path)}`,
      {
        cause: error,
        hint: 'pass the path of a design document (YAML or JSON)',
      },
    );
  }
  if (bytes === undefined) {
    throw new UsageError('design_too_large', `the design file ${shownPath(path)} is larger than 1 MiB`, {
      hint: 'a design names kinds and capabilities; the service accepts designs up to 1 MiB',
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new UsageError('invalid_design', `${shownPath(path)}: the design is not UTF-8 text`, {
      cause: error,
      hint: 'save the design as UTF-8',
    });
  }
  return { text, design: parseDesign(text, shownPath(path)) };
}

/** Read and parse a design file (see readDesignFile). */
export async function loadDesign(path: string): Promise<Design> {
  return (await readDesignFile(path)).design;
}

/** `capabilities[1].depends_on[0]` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** The line of the deepest node on `path` that the document has (a missing field points at its parent). */
function lineOf(
  doc: ReturnType<typeof parseDocument>,
  lineCounter: LineCounter,
  path: readonly PropertyKey[],
) {
  let node: unknown = doc.contents;
  let offset = rangeStart(node);
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key);
      if (!pair) break;
      // An unknown key points at the key itself; anything else at its value.
      const isLast = key === path[path.length - 1];
      node = pair.value;
      offset =
        (isLast && pair.value === null ? rangeStart(pair.key) : rangeStart(pair.value)) ??
        rangeStart(pair.key);
    } else if (isSeq(node) && typeof key === 'number') {
      node = node.items[key];
      if (node === undefined) break;
      offset = rangeStart(node);
    } else {
      break;
    }
  }
  return offset === undefined ? undefined : lineCounter.linePos(offset).line;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range?.[0];
}
