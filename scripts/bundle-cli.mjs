// `npm run build`, after tsc: bundle the CLI (dist/cli/bin.js and everything it imports) into
// dist/cli/main.js plus lazily loaded chunks (tfgate-<hash>.js) beside it, so a command loads a few
// files instead of ~150 and only the code it runs (measured in bench/check-peers.bench.mjs).
// The chunks sit in dist/cli/, the same depth as the modules they replace, so the relative URLs the
// code resolves (../../package.json, ../../policy/policy.wasm) still land in the package.
// Left external: the optional native binding pg may try, and pg itself (only `serve --database-url` loads it).
// node:sqlite (the embedded store) is built into Node. opa-wasm (CommonJS, with yaml and sprintf-js) is bundled:
// resolving and loading ~30 CommonJS files from node_modules cost every check and apply more than it saves.
// zod/mini, tree-shaken: classic zod's namespace cannot be, and the build fails if any of classic zod is
// bundled. zod's translated error messages (z.locales, ~360 KB) are left out: where tfgate shows zod's own
// wording it is English, which src/errors/zod-english.ts imports apart.
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
  plugins: [bundleOpaWasm, withoutZodLocales],
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
if (opaWasmRewrites === 0 || leftOver.length > 0) {
  throw new Error(
    `bundle-cli: opa-wasm is not bundled (${opaWasmRewrites} modules rewritten; createRequire of it left in ${leftOver.join(', ') || 'none'})`,
  );
}
