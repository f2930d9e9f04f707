// The digest of the Rego sources policy.wasm is built from: every policy/tfgate/**/*.rego except
// *_test.rego, sorted by path, each contributing "<path>\0<sha256 of content>\n". Printed as hex.
// Shared by scripts/build-policy.sh (which records it) and the freshness test (which recomputes it).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const policyRoot = fileURLToPath(new URL('../policy/', import.meta.url));

export function policySourcesDigest(root = policyRoot) {
  const files = readdirSync(join(root, 'tfgate'), { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.rego') && !name.endsWith('_test.rego'))
    .map((name) =>
      relative(root, join(root, 'tfgate', name))
        .split('\\')
        .join('/'),
    )
    .sort();
  const digest = createHash('sha256');
  for (const file of files) {
    const content = createHash('sha256')
      .update(readFileSync(join(root, file)))
      .digest('hex');
    digest.update(`${file}\0${content}\n`);
  }
  return digest.digest('hex');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${policySourcesDigest()}\n`);
}
