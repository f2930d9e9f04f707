// `npm run build`, after tsc: bundle the CLI (dist/cli/bin.js and everything it imports) into
// dist/cli/main.js plus lazily loaded chunks (tfgate-<hash>.js) beside it, so a command loads a few
// files instead of ~150 and only the code it runs (measured in bench/check-peers.bench.mjs).
// The chunks sit in dist/cli/, the same depth as the modules they replace, so the relative URLs the
// code resolves (../../package.json, ../../policy/policy.wasm) still land in the package.
// Left external: the optional native binding pg may try, and pg itself (only `serve --database-url` loads it).
// node:sqlite (the embedded store) is built into Node. opa-wasm (CommonJS, with sprintf-js) is bundled: resolving
// and loading ~30 CommonJS files from node_modules cost every check and apply more than it saves; its yaml
// builtins get a file of their own (below).
// zod/mini, tree-shaken: classic zod's namespace cannot be, and the build fails if any of classic zod is
// bundled. zod's translated error messages (z.locales, ~360 KB) are left out: where tfgate shows zod's own
// wording it is English, which src/schemas/zod.ts (every module's z) sets.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cliDir = fileURLToPath(new URL('../dist/cli/', import.meta.url));
for (const name of readdirSync(cliDir)) {
  if (/^tfgate-[A-Z0-9]+\.js$/.test(name)) rmSync(join(cliDir, name));
}

// The policy modules load opa-wasm's CommonJS module through createRequire (its ESM entry lacks
// loadPolicySync); written as require(), esbuild bundles it. The build fails if no module is rewritten or if
// a createRequire of it survives in the output, rather than silently loading it from node_modules again.
const OPA_WASM_REQUIRE = /createRequire\(import\.meta\.url\)\(\s*'@open-policy-agent\/opa-wasm',?\s*\)/g;
let opaWasmRewrites = 0;
const bundleOpaWasm = {
  name: 'bundle-opa-wasm',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]policy[\\/][^\\/]+\.js$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      const contents = source.replace(OPA_WASM_REQUIRE, "require('@open-policy-agent/opa-wasm')");
      if (contents === source) return undefined;
      opaWasmRewrites += 1;
      return { contents, loader: 'js' };
    });
  },
};
// zod's locales/index.js only gathers the translations for z.locales (zod/mini reaches it through the same
// path, zod/v4/locales); English is imported apart. Tree-shaking leaves it out today; this keeps it so.
const withoutZodLocales = {
  name: 'without-zod-locales',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export {};',
      loader: 'js',
    }));
  },
};

// opa-wasm's yaml.* builtins (the yaml library, ~200 KB) move to their own file, loaded on a policy's first yaml
// call: tfgate's policy calls none (its policy.wasm imports no JS builtin), and requiring yaml cost every check
// and apply 12-15 ms uncached. A bundle whose policy does call yaml.* still gets them, from opa-wasm-yaml.cjs.
const OPA_WASM_YAML = /[\\/]@open-policy-agent[\\/]opa-wasm[\\/]src[\\/]builtins[\\/]yaml\.js$/;
const YAML_BUILTINS_FILE = 'opa-wasm-yaml.cjs';
const opaWasmYamlOnDemand = {
  name: 'opa-wasm-yaml-on-demand',
  setup(build) {
    build.onResolve({ filter: /^\.\/opa-wasm-yaml\.cjs$/ }, ({ path }) => ({ path, external: true }));
    build.onLoad({ filter: OPA_WASM_YAML }, () => ({
      contents: `let builtins;
const load = () => (builtins ??= require('./${YAML_BUILTINS_FILE}'));
module.exports = {
  'yaml.is_valid': (value) => load()['yaml.is_valid'](value),
  'yaml.marshal': (value) => load()['yaml.marshal'](value),
  'yaml.unmarshal': (value) => load()['yaml.unmarshal'](value),
};`,
      loader: 'js',
    }));
  },
};
const opaWasmYamlSource = fileURLToPath(
  new URL('../node_modules/@open-policy-agent/opa-wasm/src/builtins/yaml.js', import.meta.url),
);
await build({
  entryPoints: [opaWasmYamlSource],
  outfile: join(cliDir, YAML_BUILTINS_FILE),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  logLevel: 'warning',
});

// node:crypto, node:zlib and node:child_process through require(), not import: an ESM import of a builtin builds
// its namespace from every export, which runs their lazy getters (crypto's webcrypto and X509Certificate, zlib's
// zip support). A 1k-change check, 21 runs alternating with the build without this: 275 -> 253 ms CPU. esbuild
// turns the named imports of these CommonJS stand-ins into property reads where they are used.
const BUILTINS_BY_REQUIRE = /^node:(crypto|zlib|child_process)$/;
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(build) {
    build.onResolve({ filter: BUILTINS_BY_REQUIRE }, ({ path, namespace }) =>
      namespace === 'builtin-by-require'
        ? { path, external: true }
        : { path, namespace: 'builtin-by-require' },
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin-by-require' }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(path)});`,
      loader: 'js',
    }));
  },
};

const result = await build({
  entryPoints: { main: join(cliDir, 'bin.js') },
  outdir: cliDir,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  chunkNames: 'tfgate-[hash]',
  external: ['pg', 'pg-native'],
  plugins: [bundleOpaWasm, withoutZodLocales, opaWasmYamlOnDemand, builtinsByRequire],
  // Bundled CommonJS dependencies call require(): give the ESM output one.
  banner: {
    js: "import { createRequire as __tfgateCreateRequire } from 'node:module';\nconst require = __tfgateCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
});

const classicZod = Object.keys(result.metafile.inputs).filter((input) =>
  /[\\/]zod[\\/]v4[\\/]classic[\\/]/.test(input),
);
if (classicZod.length > 0) {
  throw new Error(
    `bundle-cli: classic zod is bundled (${classicZod[0]}, ...): import * as z from 'zod/mini' instead of 'zod'`,
  );
}

const leftOver = readdirSync(cliDir).filter(
  (name) =>
    name.endsWith('.js') &&
    /createRequire\)?\(import\.meta\.url\)\(\s*["']@open-policy-agent\/opa-wasm/.test(
      readFileSync(join(cliDir, name), 'utf8'),
    ),
);
const importedBuiltins = readdirSync(cliDir).filter(
  (name) =>
    name.endsWith('.js') &&
    /from\s*["']node:(crypto|zlib|child_process)["']/.test(readFileSync(join(cliDir, name), 'utf8')),
);
if (importedBuiltins.length > 0) {
  throw new Error(
    `bundle-cli: an ESM import of node:crypto, node:zlib or node:child_process is left in ${importedBuiltins.join(', ')}`,
  );
}
if (opaWasmRewrites === 0 || leftOver.length > 0) {
  throw new Error(
    `bundle-cli: opa-wasm is not bundled (${opaWasmRewrites} modules rewritten; createRequire of it left in ${leftOver.join(', ') || 'none'})`,
  );
}
