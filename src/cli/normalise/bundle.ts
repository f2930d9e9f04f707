// `tfgate bundle build|verify|pull`: flags and environment → each subcommand's options, parsed once.
import { CLIENT_FLAG_NAMES } from '../../client/config.js';
import { type BundleBuildOptions, bundleBuildOptionsSchema } from '../../commands/bundle-build.js';
import { type BundlePullOptions, bundlePullOptionsSchema } from '../../commands/bundle-pull.js';
import { type BundleVerifyOptions, bundleVerifyOptionsSchema } from '../../commands/bundle-verify.js';
import { parseOptions } from '../../options/common.js';
import { GivenSettings } from './given.js';
import { accountInput, clientInput, keyFilePath, publicKeyInput, type ServiceFlags } from './shared.js';

export interface BundleBuildFlags {
  design?: string;
  signingKey?: string;
  keyId?: string;
  scope?: string;
  revision?: string;
  output?: string;
  account?: string;
}

/** TFGATE_SIGNING_KEY names the key file when the flag is absent. */
export function normaliseBundleBuildOptions(
  flags: BundleBuildFlags,
  env: NodeJS.ProcessEnv,
): BundleBuildOptions {
  const signingKey = keyFilePath(
    { name: '--signing-key', value: flags.signingKey },
    { name: 'TFGATE_SIGNING_KEY', env },
  );
  return parseOptions(
    bundleBuildOptionsSchema,
    {
      ...flags,
      signingKey: signingKey?.path,
      ...(signingKey?.givenAs ? { signingKeyGivenAs: signingKey.givenAs } : {}),
    },
    {
      design: '--design',
      signingKey: '--signing-key',
      output: '--output',
      keyId: '--key-id',
      scope: '--scope',
      account: '--account',
    },
  );
}

export interface BundleVerifyFlags {
  publicKey?: string;
  package?: string;
  scope?: string;
  account?: string;
  allowUnsignedBundleINSECURE?: boolean;
}

export function normaliseBundleVerifyOptions(
  bundle: string,
  flags: BundleVerifyFlags,
  env: NodeJS.ProcessEnv,
): BundleVerifyOptions {
  return parseOptions(
    bundleVerifyOptionsSchema,
    {
      bundle,
      ...publicKeyInput(flags, env),
      packageId: flags.package,
      scope: flags.scope,
      account: accountInput(flags, env),
      allowUnsigned: flags.allowUnsignedBundleINSECURE ?? false,
    },
    { publicKey: '--public-key', packageId: '--package', scope: '--scope', account: '--account' },
  );
}

export interface BundlePullFlags extends ServiceFlags {
  package?: string;
  dir?: string;
}

export function normaliseBundlePullOptions(
  flags: BundlePullFlags,
  env: NodeJS.ProcessEnv,
): BundlePullOptions {
  const given = new GivenSettings(env, { ...CLIENT_FLAG_NAMES, packageId: '--package', dir: '--dir' });
  const input = {
    packageId: given.text('packageId', flags.package, 'TFGATE_PACKAGE'),
    // An empty --dir is no directory (the default), as an empty variable is.
    dir: flags.dir === '' ? undefined : given.text('dir', flags.dir, 'TFGATE_BUNDLE_DIR'),
    client: clientInput(flags),
  };
  return parseOptions(bundlePullOptionsSchema, input, given.flagNames);
}
