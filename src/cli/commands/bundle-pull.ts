// `tfgate bundle pull`: commander wiring only; src/commands/bundle-pull.ts does the work.
import type { Command } from 'commander';
import type { BundlePullFlags } from '../normalise/bundle.js';
import { addServiceOptions } from '../options.js';

export function registerBundlePull(bundle: Command): void {
  const pull = bundle
    .command('pull')
    .description(
      "Download a package's signed bundle and the platform public key, verify them, and cache them by ETag; then decide offline with `tfgate check --bundle … --public-key …`. The API key is read from TFGATE_API_KEY.",
    )
    .option('--package <id>', 'the package whose bundle to pull (env TFGATE_PACKAGE)')
    // The default is DEFAULT_BUNDLE_CACHE, spelled out so help does not load the HTTP client.
    .option('--dir <cache>', 'cache directory (default .tfgate/bundles; env TFGATE_BUNDLE_DIR)');
  addServiceOptions(pull).action(async (flags: BundlePullFlags) => {
    const { describeBundlePull, describeCacheNotes, runBundlePull } = await import(
      '../../commands/bundle-pull.js'
    );
    const { normaliseBundlePullOptions } = await import('../normalise/bundle.js');
    const result = await runBundlePull(normaliseBundlePullOptions(flags, process.env), { env: process.env });
    process.stderr.write(describeCacheNotes(result)); // warnings on stderr, so stdout stays the summary
    process.stdout.write(describeBundlePull(result));
  });
}
