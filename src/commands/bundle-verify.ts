// `tfgate bundle verify`: what opa would check (signature, scope, every file's digest), and tfgate's layout.
import { z } from 'zod';
import { parseOptions } from '../options/common.js';
import { readVerifiedBundle, type VerifiedBundle } from '../policy/bundle/index.js';

export const bundleVerifyOptionsSchema = z
  .object({
    bundle: z.string().min(1),
    publicKey: z.string().min(1).optional(),
    packageId: z.string().min(1).optional(),
    scope: z.string().min(1).optional(),
    allowUnsigned: z.boolean().default(false),
  })
  .refine((o) => o.publicKey !== undefined || o.allowUnsigned, {
    message: 'a bundle is verified with the platform public key: pass --public-key <pem>',
    path: ['publicKey'],
  });
export type BundleVerifyOptions = z.input<typeof bundleVerifyOptionsSchema>;

export interface BundleVerifyFlags {
  publicKey?: string;
  package?: string;
  scope?: string;
  allowUnsignedBundleINSECURE?: boolean;
}

export function resolveBundleVerifyOptions(bundle: string, flags: BundleVerifyFlags, env: NodeJS.ProcessEnv) {
  return parseOptions(
    bundleVerifyOptionsSchema,
    {
      bundle,
      publicKey: flags.publicKey ?? (env.TFGATE_PUBLIC_KEY || undefined),
      packageId: flags.package,
      scope: flags.scope,
      allowUnsigned: flags.allowUnsignedBundleINSECURE ?? false,
    },
    { publicKey: '--public-key', packageId: '--package', scope: '--scope' },
  );
}

/** Resolves with what was verified; a refusal is a thrown BundleVerificationError (exit 4) saying which check failed. */
export async function runBundleVerify(input: BundleVerifyOptions): Promise<VerifiedBundle> {
  const options = bundleVerifyOptionsSchema.parse(input);
  return readVerifiedBundle(options.bundle, {
    ...(options.publicKey === undefined ? {} : { publicKey: { path: options.publicKey } }),
    expectedPackageId: options.packageId,
    scope: options.scope,
    allowUnsigned: options.allowUnsigned,
  });
}

/** The human summary `tfgate bundle verify` prints. */
export function describeVerifiedBundle(path: string, bundle: VerifiedBundle): string {
  const lines = [
    bundle.signed
      ? `verified ${path}`
      : `NOT verified ${path} (unsigned; accepted only because of --allow-unsigned-bundle-INSECURE)`,
    `  package   ${bundle.packageId}`,
    `  revision  ${bundle.revision}`,
    `  key id    ${bundle.keyId ?? '-'}`,
    `  scope     ${bundle.scope ?? '-'}`,
    `  files     ${bundle.files.length}${bundle.signed ? ', each matching its signed SHA-256 digest' : ''}`,
    ...bundle.files.map((f) => `    ${f.sha256}  ${f.name} (${f.size} bytes)`),
  ];
  return `${lines.join('\n')}\n`;
}
