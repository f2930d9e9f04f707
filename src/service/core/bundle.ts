// The per-package signed bundle: built once per approved revision and platform key, cached in the store.
import { assembleBundle, loadPolicySources, type PolicySources } from '../../policy/bundle/index.js';
import type { PackageRecord } from '../store/index.js';
import { sha256Hex } from './canonical.js';
import type { ServiceContext } from './context.js';

let policySources: Promise<{ sources: PolicySources; digest: string }> | undefined;

function policy(): Promise<{ sources: PolicySources; digest: string }> {
  policySources ??= loadPolicySources().then((sources) => ({
    sources,
    digest: sha256Hex(
      Buffer.concat([sources.wasm, ...sources.regoFiles.flatMap((f) => [Buffer.from(f.name), f.source])]),
    ),
  }));
  return policySources;
}

/**
 * The bundle revision (and ETag): a hash of the design revision, the policy and the signing key, so a
 * new design, a new tfgate policy or a rotated key each give a new revision and clients fetch again.
 */
export async function bundleRevision(ctx: ServiceContext, pkg: PackageRecord): Promise<string> {
  const { digest } = await policy();
  return sha256Hex(`${pkg.revision}:${digest}:${ctx.platformKey.keyId}`).slice(0, 32);
}

export async function packageBundle(
  ctx: ServiceContext,
  pkg: PackageRecord,
): Promise<{ revision: string; bytes: Buffer }> {
  const revision = await bundleRevision(ctx, pkg);
  const cached = await ctx.store.bundles.get(pkg, revision);
  if (cached) return { revision, bytes: cached };
  const { sources } = await policy();
  const bytes = assembleBundle(
    { packageId: pkg.packageId, data: ctx.policyData(pkg.revision, pkg.design), policy: sources },
    { signingKeyPem: ctx.platformKey.privateKeyPem, keyId: ctx.platformKey.keyId, revision },
  );
  await ctx.store.bundles.put(pkg, revision, bytes);
  return { revision, bytes };
}
