// The import rules `npm test` enforces (npm run lint:deps): no import cycles, and layers that only point down.
//
// Layers, bottom to top. A module may import its own layer and the layers below it, never one above:
//   0 foundation  model (the result model and the evaluator port), errors, schemas (the contract), fs
//   1 read        catalog, design, plan, json (the untrusted-JSON reader is the plan scanner's), locate
//   2 evaluate    policy (the engine and the signed bundle)
//   3 report      report (renderers and report targets: an observer of results)
//   4 adapters    client (the one service client), terraform (the one terraform runner)
//   5 products    cdktf (the aspect), service (the reference service: store < core < http, below)
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
      name: 'service-store-speaks-the-domain',
      comment:
        'the store returns domain results and errors; the HTTP layer maps them. TEMPORARY exception, being fixed by the service work of issue 9: store.ts still throws ServiceError (an HTTP status) from core/errors.ts',
      severity: 'error',
      from: { path: '^src/service/store/', pathNot: '^src/service/store/store\\.ts$' },
      // core/types.ts is the domain's vocabulary (records, scopes), shared by store and core.
      to: { path: '^src/service/(core|http)/', pathNot: '^src/service/core/types\\.ts$' },
    },
    {
      name: 'service-store-speaks-the-domain-temporary',
      comment:
        'TEMPORARY (issue 9, service work): store.ts may import only core/errors.ts above it, nothing else',
      severity: 'error',
      from: { path: '^src/service/store/store\\.ts$' },
      to: { path: '^src/service/(core|http)/', pathNot: '^src/service/core/(errors|types)\\.ts$' },
    },
    {
      name: 'service-core-below-http',
      comment:
        'the core takes streams and domain values, never the HTTP layer. TEMPORARY exception, being fixed by the service work of issue 9: core/context.ts imports the Logger type from http/log.ts',
      severity: 'error',
      from: { path: '^src/service/core/' },
      to: {
        path: '^src/service/http/',
        pathNot: '^src/service/http/log\\.ts$',
      },
    },
    {
      name: 'service-core-below-http-temporary',
      comment: 'TEMPORARY (issue 9, service work): only core/context.ts may import http/log.ts',
      severity: 'error',
      from: { path: '^src/service/core/', pathNot: '^src/service/core/context\\.ts$' },
      to: { path: '^src/service/http/log\\.ts$' },
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
