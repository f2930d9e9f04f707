// Differential property tests (issue 8): what the plan and state readers extract from any bytes is exactly
// what JSON.parse gives for the same bytes, or the input is refused.
//
// For each generated input (fuzz-json.ts: escapes in keys and values, unicode and surrogates, duplicate
// keys at every level, whitespace, numbers, mutations), fed in random chunks:
// - JSON.parse of the bytes decoded as UTF-8 (fatal) refuses  =>  the reader refuses (exit 4);
// - else the reader must decide as it does on JSON.stringify(JSON.parse(bytes)), the document JSON.parse
//   read, written plainly: both accepted or both refused; and when accepted, what it keeps is exactly the
//   fields taken from JSON.parse's result (a count index of -0 stays -0, a duplicate key's last value wins).
// On failure fast-check prints the seed and the shrunk counterexample. To replay one:
//   FC_SEED=<seed> FC_PATH=<path> npx vitest run test/plan/reader-differential.test.ts
// FC_RUNS=<n> sets the runs of every property (default: thousands per run), for a longer search.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IncompletePlanError, InvalidPlanError } from '../../src/errors/index.js';
import { readPlan } from '../../src/plan/read-plan.js';
import { readObservedState } from '../../src/plan/read-state.js';
import { JsonScanError, JsonScanner, SKIP, valueNode } from '../../src/plan/scanner/index.js';
import { anyDoc, type Doc, planDoc, stateDoc, style, toBytes } from './fuzz-json.js';
import { splitBytes } from './helpers.js';
import { parseJson } from './json-reference.js';

/** A longer run asked for with FC_RUNS gets the time it needs (the suite's default is 60 s per test). */
const TIMEOUT = process.env.FC_RUNS ? 3_600_000 : undefined;

const settings = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns: Number(process.env.FC_RUNS ?? numRuns),
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
  ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
});

type Parsed = { ok: true; doc: unknown } | { ok: false };
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The reference reading: the bytes decoded as UTF-8 (invalid bytes refused), then JSON.parse (parseJson). */
function jsonParse(bytes: Buffer): Parsed {
  try {
    return { ok: true, doc: parseJson(utf8.decode(bytes)) };
  } catch {
    return { ok: false };
  }
}

async function outcome(promise: Promise<unknown>): Promise<Outcome> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

async function* chunks(bytes: Buffer, seed: number) {
  // Random sizes (1-97 bytes); one small input in eight a byte at a time.
  const chunking = seed % 8 === 0 && bytes.length < 1024 ? 'bytes' : 'random';
  for (const chunk of splitBytes(bytes, chunking, seed)) yield chunk;
}

const own = (from: unknown, name: string): boolean =>
  typeof from === 'object' && from !== null && Object.hasOwn(from, name);

function pick(from: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => own(from, name)).map((name) => [name, from[name]]));
}

/** What the plan reader keeps, taken from JSON.parse's result (of a plan the schema accepted). */
function planFields(plan: Record<string, unknown>): unknown {
  const changes = (plan.resource_changes ?? []) as Array<Record<string, unknown>>;
  return {
    ...pick(plan, ['format_version', 'terraform_version']),
    resource_changes: changes.map((rc) => ({
      ...pick(rc, ['address', 'module_address', 'mode', 'type', 'name', 'index', 'provider_name']),
      ...pick(rc, ['deposed', 'previous_address']),
      change: pick(rc.change as Record<string, unknown>, ['actions', 'importing']),
    })),
  };
}

interface Module {
  address?: string;
  resources?: Array<Record<string, unknown>>;
  child_modules?: Module[];
}

/** What the state reader gives, from JSON.parse's result: resources of the root, then children depth-first. */
function stateFields(state: Record<string, unknown>): unknown {
  const resources: unknown[] = [];
  const visit = (module: Module | undefined) => {
    if (module === undefined) return;
    for (const resource of module.resources ?? []) {
      const fields = pick(resource, ['address', 'mode', 'type', 'name']);
      resources.push(own(module, 'address') ? { ...fields, module_address: module.address } : fields);
    }
    for (const child of module.child_modules ?? []) visit(child);
  };
  visit((state.values as { root_module?: Module } | undefined)?.root_module);
  return { ...pick(state, ['format_version', 'terraform_version']), resources };
}

/** A refusal with the reader's error: exit 4 (invalid_plan), or the errored plan's own error. */
function expectRefusal(result: Outcome, bytes: Buffer): void {
  expect(result.ok, `accepted what JSON.parse refuses: ${JSON.stringify(bytes.toString('latin1'))}`).toBe(
    false,
  );
  if (!result.ok && !(result.error instanceof InvalidPlanError)) throw result.error;
  expect((result as { error: InvalidPlanError }).error.exitCode).toBe(4);
}

async function differential(
  doc: Doc,
  written: Parameters<typeof toBytes>[1],
  read: (input: AsyncIterable<Buffer>) => Promise<unknown>,
  fields: (parsed: Record<string, unknown>) => unknown,
): Promise<void> {
  const bytes = toBytes(doc, written);
  const reference = jsonParse(bytes);
  const result = await outcome(read(chunks(bytes, written.seed)));
  if (!reference.ok) {
    expectRefusal(result, bytes);
    return;
  }
  const plain = Buffer.from(JSON.stringify(reference.doc));
  const verdict = await outcome(read(chunks(plain, 1)));
  const shown = () => `${JSON.stringify(bytes.toString('utf8'))}\nplainly: ${plain.toString('utf8')}`;
  expect(
    result.ok,
    `accepted one and refused the other:\n${shown()}\n${String((result as { error?: unknown }).error ?? (verdict as { error?: unknown }).error)}`,
  ).toBe(verdict.ok);
  if (result.ok) {
    expect(result.value, shown()).toEqual(fields(reference.doc as Record<string, unknown>));
  } else {
    const error = (result as { error: unknown }).error;
    const expected = (verdict as { error: unknown }).error;
    if (!(error instanceof InvalidPlanError || error instanceof IncompletePlanError)) throw error;
    expect(error.constructor, shown()).toBe((expected as object).constructor);
  }
}

describe('the plan reader reads what JSON.parse reads, or refuses', () => {
  it(
    'for generated and mutated plans in random chunks',
    async () => {
      await fc.assert(
        fc.asyncProperty(planDoc, style, (doc, written) =>
          differential(doc, written, (input) => readPlan(input, { description: 'plan' }), planFields),
        ),
        settings(2500),
      );
    },
    TIMEOUT,
  );
});

describe('the state reader (drift) reads what JSON.parse reads, or refuses', () => {
  it(
    'for generated and mutated states in random chunks',
    async () => {
      await fc.assert(
        fc.asyncProperty(stateDoc, style, (doc, written) =>
          differential(
            doc,
            written,
            (input) => readObservedState(input, { description: 'state' }),
            stateFields,
          ),
        ),
        settings(1500),
      );
    },
    TIMEOUT,
  );
});

describe('the scanner, on any JSON value', () => {
  const scan = (bytes: Buffer, root: typeof SKIP | ReturnType<typeof valueNode>, seed: number) => {
    const scanner = new JsonScanner(root);
    for (const chunk of splitBytes(bytes, 'random', seed)) scanner.write(chunk);
    return scanner.end();
  };
  /** Whether a string or key anywhere in the value holds a lone surrogate (refused where kept). */
  const hasLoneSurrogate = (value: unknown): boolean =>
    typeof value === 'string'
      ? /\p{Cs}/u.test(value)
      : typeof value === 'object' && value !== null
        ? Object.entries(value).some(([k, v]) => hasLoneSurrogate(k) || hasLoneSurrogate(v))
        : false;

  it(
    'skips exactly what JSON.parse accepts, and keeps exactly what it gives',
    () => {
      fc.assert(
        fc.property(anyDoc, style, (doc, written) => {
          const bytes = toBytes(doc, written);
          const reference = jsonParse(bytes);
          const shown = JSON.stringify(bytes.toString('latin1'));
          let skipped: unknown;
          try {
            skipped = scan(bytes, SKIP, written.seed);
          } catch (error) {
            if (!(error instanceof JsonScanError)) throw error;
            expect(reference.ok, `refused what JSON.parse accepts: ${shown}: ${error.message}`).toBe(false);
            return;
          }
          expect(reference.ok, `accepted what JSON.parse refuses: ${shown}`).toBe(true);
          expect(skipped).toBeUndefined();
          const doc2 = (reference as { doc: unknown }).doc;
          if (hasLoneSurrogate(doc2)) {
            expect(() => scan(bytes, valueNode(), written.seed), shown).toThrow(
              /an unpaired surrogate \(U\+D[89A-F][0-9A-F]{2},/,
            );
          } else {
            expect(scan(bytes, valueNode(), written.seed), shown).toEqual(doc2);
          }
        }),
        settings(4000),
      );
    },
    TIMEOUT,
  );
});
