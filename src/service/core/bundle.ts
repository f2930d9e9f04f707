// The per-package signed bundle: built once per approved revision and platform key, cached in the store.
import { assembleBundle, loadPolicySources, type PolicySources } from '../../policy/bundle/index.js';
import type { PolicyData } from '../../policy/index.js';
import type { PackageRecord } from '../store/index.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import type { ServiceContext } from './context.js';
import { decisionPolicyData } from './plan-acknowledgements.js';

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
 * The bundle revision (and ETag): a hash of the design revision, the policy, the signing key and the plan
 * acknowledgements the bundle carries, so a new design, a new tfgate policy, a rotated key or an
 * acknowledgement made or revoked each give a new revision and clients fetch again. The account is part of
 * it since bundles name their account (a bundle cached without one is never served again).
 */
export function bundleRevision(ctx: ServiceContext, pkg: PackageRecord, data: PolicyData): Promise<string> {
  return policy().then(({ digest }) => {
    const acks = data.plan_acknowledgements ? `:${sha256Hex(canonicalJson(data.plan_acknowledgements))}` : '';
    const account = `:account=${pkg.account}`;
    return sha256Hex(`${pkg.revision}:${digest}:${ctx.platformKey.keyId}${acks}${account}`).slice(0, 32);
  });
}

export async function packageBundle(
  ctx: ServiceContext,
  pkg: PackageRecord,
): Promise<{ revision: string; bytes: Buffer }> {
  // The package's plan acknowledgements travel in the signed data: the offline route honours them too.
  const data = await decisionPolicyData(ctx, pkg);
  const revision = await bundleRevision(ctx, pkg, data);
  const cached = await ctx.store.bundles.get(pkg, revision);
  if (cached) return { revision, bytes: cached };
  const { sources } = await policy();
  const bytes = assembleBundle(
    { packageId: pkg.packageId, account: pkg.account, data, policy: sources },
    { signingKeyPem: ctx.platformKey.privateKeyPem, keyId: ctx.platformKey.keyId, revision },
  );
  await ctx.store.bundles.put(pkg, revision, bytes);
  return { revision, bytes };
}
