// `npm run build`, after tsc: bundle the CLI (dist/cli/bin.js and everything it imports) into
// dist/cli/main.js plus lazily loaded chunks (tfgate-<hash>.js) beside it, so a command loads a few
// files instead of ~150 and only the code it runs (measured in bench/check-peers.bench.mjs).
// The chunks sit in dist/cli/, the same depth as the modules they replace, so the relative URLs the
// code resolves (../../package.json, ../../policy/policy.wasm) still land in the package.
// Left external: the optional native binding pg may try, pg itself, and opa-wasm (loaded with
// createRequire). node:sqlite (the embedded store) is built into Node.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cliDir = fileURLToPath(new URL('../dist/cli/', import.meta.url));
for (const name of readdirSync(cliDir)) {
  if (/^tfgate-[A-Z0-9]+\.js$/.test(name)) rmSync(join(cliDir, name));
}

await build({
  entryPoints: { main: join(cliDir, 'bin.js') },
  outdir: cliDir,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  chunkNames: 'tfgate-[hash]',
  external: ['pg', 'pg-native', '@open-policy-agent/opa-wasm'],
  // Bundled CommonJS dependencies call require(): give the ESM output one.
  banner: {
    js: "import { createRequire as __tfgateCreateRequire } from 'node:module';\nconst require = __tfgateCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
