// `tfgate bundle <subcommand>`: build and verify signed OPA bundles (and, from the client, pull).
import type { Command } from 'commander';
import type { BundleBuildFlags, BundleVerifyFlags } from '../normalise/bundle.js';
import { registerBundlePull } from './bundle-pull.js';

/** Subcommands of `tfgate bundle`: one register function each. */
const BUNDLE_SUBCOMMANDS: Array<(bundle: Command) => void> = [
  registerBundleBuild,
  registerBundleVerify,
  registerBundlePull,
];

export function registerBundle(program: Command): void {
  const bundle = program
    .command('bundle')
    .description('Signed OPA policy bundles: one per package, verified with the platform public key.');
  for (const register of BUNDLE_SUBCOMMANDS) register(bundle);
}

function registerBundleBuild(bundle: Command): void {
  bundle
    .command('build')
    .description(
      "Sign the package's design and tfgate's policy into an OPA bundle (opa build/eval read it too).",
    )
    .option('--design <file>', 'the approved design document (YAML or JSON)')
    .option('--signing-key <pem>', 'RSA private key, PEM (env TFGATE_SIGNING_KEY)')
    .option('--key-id <id>', 'key id in the signature (default: derived from the public key)')
    .option('--scope <scope>', 'scope claim of the signature (default: the package id)')
    .option('--account <name>', 'the service account whose package this is (verify with --account)')
    .option('--output <bundle.tar.gz>', 'where to write the bundle (written whole or not at all)')
    .action(async (flags: BundleBuildFlags) => {
      // Loaded on demand: startup time counts for every command (bench/apply-overhead).
      const { runBundleBuild } = await import('../../commands/bundle-build.js');
      const { normaliseBundleBuildOptions } = await import('../normalise/bundle.js');
      const result = await runBundleBuild(normaliseBundleBuildOptions(flags, process.env));
      process.stdout.write(
        `wrote ${result.path}: package ${result.packageId}, revision ${result.revision}, key id ${result.keyId ?? '-'}, scope ${result.scope ?? '-'}, account ${result.account ?? '-'}, ${result.files.length} files, ${result.bytes} bytes\n`,
      );
    });
}

function registerBundleVerify(bundle: Command): void {
  bundle
    .command('verify')
    .description(
      'Verify a bundle as opa would (signature, scope, every file digest) and say what was verified.',
    )
    .argument('<bundle>', 'the bundle (.tar.gz)')
    .option('--public-key <pem>', 'platform public key, PEM (env TFGATE_PUBLIC_KEY)')
    .option('--package <id>', 'refuse a bundle built for another package')
    .option('--scope <scope>', 'the scope the signature must carry (default: the package id)')
    .option('--account <name>', "refuse a bundle built for another account's package (env TFGATE_ACCOUNT)")
    .option('--allow-unsigned-bundle-INSECURE', 'accept a bundle with no signature (INSECURE)')
    .action(async (path: string, flags: BundleVerifyFlags) => {
      const { describeVerifiedBundle, runBundleVerify } = await import('../../commands/bundle-verify.js');
      const { normaliseBundleVerifyOptions } = await import('../normalise/bundle.js');
      const { UNSIGNED_BUNDLE_WARNING } = await import('../../policy/bundle/index.js');
      const verified = await runBundleVerify(normaliseBundleVerifyOptions(path, flags, process.env));
      if (!verified.signed) process.stderr.write(`${UNSIGNED_BUNDLE_WARNING}\n`);
      process.stdout.write(describeVerifiedBundle(path, verified));
    });
}
