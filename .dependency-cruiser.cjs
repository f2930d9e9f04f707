// The import rules `npm test` enforces (npm run lint:deps): no import cycles, and layers that only point down.
//
// Layers, bottom to top. A module may import its own layer and the layers below it, never one above:
//   0 foundation  model (the result model and the evaluator port), errors, schemas (the contract), fs
//   1 read        catalog, design, plan, json (the untrusted-JSON reader is the plan scanner's), locate
//   2 evaluate    policy (the engine and the signed bundle)
//   3 report      report (renderers and report targets: an observer of results)
//   4 adapters    client (the one service client), terraform (the one terraform runner)
//   5 products    cdktf (the aspect), service (the reference service: types < store < core < http, below)
//   6 commands    commands (async fn(options) -> result), options (option pieces the commands share)
//   7 entry       cli (flags -> options, the one top-level catch), index.ts (the library API)
const LAYERS = [
  ['model', 'errors', 'schemas', 'fs'],
  ['catalog', 'design', 'plan', 'json', 'locate'],
  ['policy'],
  ['report'],
  ['client', 'terraform'],
  ['cdktf', 'service'],
  ['commands', 'options'],
  ['cli', 'index\\.ts'],
];

const folders = (layers) => `^src/(${layers.flat().join('|')})(/|$)`;

/** One rule per layer: nothing in it imports a layer above it. */
const upwardRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-import-from-${layer[0]}`,
  comment: `layer ${i} (${layer.join(', ')}) must not import a higher layer (${LAYERS.slice(i + 1)
    .flat()
    .join(', ')})`,
  severity: 'error',
  from: { path: folders([layer]) },
  to: { path: folders(LAYERS.slice(i + 1)) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle: split the shared part into its own module',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upwardRules,
    {
      name: 'no-model-imports',
      comment: 'the result model imports nothing of tfgate: every layer may depend on it',
      severity: 'error',
      from: { path: '^src/model/' },
      to: { path: '^src/', pathNot: '^src/model/' },
    },
    {
      name: 'zod-through-schemas-zod',
      comment:
        'take z from src/schemas/zod.ts, which sets zod\'s English wording: a module importing zod/mini itself may parse before any module has set it, and its messages then read "Invalid input"',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/schemas/zod\\.ts$' },
      to: { path: '(^|node_modules/)zod(/|$)' },
    },
    {
      name: 'service-store-speaks-the-domain',
      comment:
        'the store returns domain results and throws its own errors; the core and the HTTP layer map them (service/types.ts is the shared vocabulary, below all three)',
      severity: 'error',
      from: { path: '^src/service/store/' },
      to: { path: '^src/service/(core|http|scheduler|config|index)' },
    },
    {
      name: 'service-core-below-http',
      comment: 'the core takes streams and domain values, never the HTTP layer',
      severity: 'error',
      from: { path: '^src/service/core/' },
      to: { path: '^src/service/http/' },
    },
    {
      name: 'service-types-are-the-bottom',
      comment: 'service/types.ts is the vocabulary store, core and http share: it imports none of them',
      severity: 'error',
      from: { path: '^src/service/types\\.ts$' },
      to: { path: '^src/service/(store|core|http)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a layer that names a higher layer's type depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
