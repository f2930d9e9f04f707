// Priming the scanner for a cold process. V8 optimises the scanner's hot functions within the first few
// thousand tokens; a branch that has not run by then (the first number cut by a chunk's end, the first
// escaped key, a pretty-printed colon) has no type feedback, so when it runs the optimised code is thrown
// away and compiled again (20-30 ms of compilation each for the skip loop). Scanning one small document that
// takes those branches first, once per process, gives the first optimisation complete feedback. Measured on
// a 1,000-change plan read cold (priming included): deoptimisations 9-15 -> 1-3, the read's CPU about -15%.
import type { JsonScanner } from './scanner/index.js';

const SECRET_FREE_VALUES = {
  n: -1.5e3,
  z: 0,
  i: 12,
  f: 0.25,
  e: 1e-7,
  s: 'x\n"\\/\u0001\t',
  u: 'é日😀',
  t: true,
  no: false,
  nil: null,
  a: [1, [2, {}], [], 'x', true, null],
  o: { '\n': 1, '': [] },
};

function change(i: number): Record<string, unknown> {
  return {
    address: i === 0 ? 'module.m.a.b[0]' : `a.b["k\\"${i}é"]`,
    ...(i === 0 ? { module_address: 'module.m', index: 0 } : { index: `k"${i}é` }),
    mode: 'managed',
    type: 'a_b',
    name: 'b',
    provider_name: 'registry.terraform.io/hashicorp/a',
    unknown_field: SECRET_FREE_VALUES,
    change: {
      actions: i === 0 ? ['delete', 'create'] : ['create'],
      before: i === 0 ? SECRET_FREE_VALUES : null,
      after: { ...SECRET_FREE_VALUES, id: null },
      after_unknown: {},
      before_sensitive: false,
      after_sensitive: { s: true },
      ...(i === 2 ? { importing: { id: 'x' } } : {}),
    },
    action_reason: 'replace_because_cannot_update',
  };
}

const PLAN = {
  format_version: '1.2',
  terraform_version: '1.11.4',
  variables: { v: { value: SECRET_FREE_VALUES } },
  planned_values: { root_module: { resources: [{ values: SECRET_FREE_VALUES }] } },
  resource_changes: [change(0), change(1), change(2)],
  configuration: { root_module: { resources: [{ expressions: SECRET_FREE_VALUES }] } },
  timestamp: '2025-01-01T00:00:00Z',
  applyable: true,
  complete: true,
  errored: false,
};

let primed = false;

/**
 * Scan a small plan through `scanner(streamed)` once per process: compact and pretty-printed, whole and in
 * chunks of 97 and 61 bytes (tokens cut by a chunk's end; smaller chunks cost more than they saved), and
 * once with its resource changes streamed. A no-op after the first call.
 */
export function primeOnce(scanner: (streamed: boolean) => JsonScanner): void {
  if (primed) return;
  primed = true;
  const compact = Buffer.from(JSON.stringify(PLAN));
  const pretty = Buffer.from(JSON.stringify(PLAN, null, 1).replace(/\n/g, '\r\n\t'));
  for (const [doc, size, streamed] of [
    [compact, compact.length, false],
    [pretty, pretty.length, false],
    [compact, 97, false],
    [compact, 61, true],
  ] as const) {
    const scan = scanner(streamed);
    for (let i = 0; i < doc.length; i += size) scan.write(doc.subarray(i, i + size));
    scan.end();
  }
}
