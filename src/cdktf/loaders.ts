// Where the aspect's policy comes from, loaded before synth (verification and wasm compilation are async):
// a signed bundle file, the service, or a local design. Each gives the compiled engine, the design's data,
// and a description recorded in the synth output.
import { ServiceClient } from '../client/index.js';
import { type Design, loadDesign } from '../design/index.js';
import { NoDecisionError, UsageError } from '../errors/index.js';
import { readVerifiedBundle } from '../policy/bundle/index.js';
import { compilePolicyData, type PolicyData } from '../policy/data.js';
import { PolicyEngine } from '../policy/engine.js';
import {
  type FromBundleOptions,
  type FromDesignOptions,
  type FromServiceOptions,
  fromBundleOptionsSchema,
  fromDesignOptionsSchema,
  fromServiceOptionsSchema,
  type ParsedConformanceOptions,
  parseAspectOptions,
  publicKeySource,
} from './options.js';

export interface LoadedPolicy {
  engine: PolicyEngine;
  data: PolicyData;
  /** Shown in messages and recorded: "bundle <path> (revision r)", "service <url> ...", "design <file>". */
  description: string;
  signed: boolean;
  options: ParsedConformanceOptions;
}

/**
 * A bundle file, read and verified as the CLI reads it: an unreadable or unverifiable bundle or key is no
 * decision (BundleVerificationError, exit 4).
 */
export async function loadFromBundle(path: string, options: FromBundleOptions): Promise<LoadedPolicy> {
  const parsed = parseAspectOptions(fromBundleOptionsSchema, options, 'ConformanceAspect.fromBundle');
  if (parsed.publicKey === undefined && !parsed.allowUnsigned) {
    throw new UsageError('public_key_required', 'ConformanceAspect.fromBundle: publicKey is required', {
      hint: "pass { publicKey: '<path of the platform public key PEM>' } (tfgate bundle pull saves one)",
    });
  }
  const bundle = await readVerifiedBundle(path, {
    ...(parsed.publicKey === undefined ? {} : { publicKey: publicKeySource(parsed.publicKey) }),
    expectedPackageId: parsed.packageId,
    expectedAccount: parsed.account,
    allowUnsigned: parsed.allowUnsigned,
    warn: (message) => process.stderr.write(`${message}\n`),
  });
  return {
    engine: await PolicyEngine.load(bundle.wasm),
    data: bundle.data,
    description: `bundle ${path} (revision ${bundle.revision}${bundle.signed ? `, key ${bundle.keyId ?? 'unnamed'}` : ', UNSIGNED'})`,
    signed: bundle.signed,
    options: parsed,
  };
}

/**
 * The package's bundle (and the platform public key, unless pinned) downloaded with tfgate's client
 * (retries, proxies, CAs), then verified as a bundle file is.
 */
export async function loadFromService(options: FromServiceOptions): Promise<LoadedPolicy> {
  const parsed = parseAspectOptions(fromServiceOptionsSchema, options, 'ConformanceAspect.fromService');
  const env = parsed.apiKey === undefined ? process.env : { ...process.env, TFGATE_API_KEY: parsed.apiKey };
  const client = await ServiceClient.fromOptions(
    { ...(parsed.baseUrl === undefined ? {} : { baseUrl: parsed.baseUrl }), caFile: parsed.caFile },
    env,
  );
  try {
    const pinned = parsed.publicKey === undefined ? undefined : publicKeySource(parsed.publicKey);
    const [download, fetchedKey] = await Promise.all([
      client.bundle(parsed.packageId),
      pinned === undefined ? client.publicKeyPem() : undefined,
    ]);
    if (download.status !== 'downloaded') {
      throw new NoDecisionError(
        'bundle_not_downloaded',
        `the service sent no bundle for ${parsed.packageId}`,
      );
    }
    const bundle = await readVerifiedBundle(download.bytes, {
      publicKey: pinned ?? { pem: fetchedKey ?? '' },
      expectedPackageId: parsed.packageId,
    });
    const key = `key ${bundle.keyId ?? 'unnamed'}${pinned ? ', pinned' : ''}`;
    return {
      engine: await PolicyEngine.load(bundle.wasm),
      data: bundle.data,
      description: `service ${client.baseUrl} package ${bundle.packageId} (revision ${bundle.revision}, ${key})`,
      signed: true,
      options: parsed,
    };
  } finally {
    await client.close();
  }
}

/** A design evaluated with the policy that ships with tfgate: no bundle, no signature. */
export async function loadFromDesign(
  design: Design | string,
  options: FromDesignOptions,
): Promise<LoadedPolicy> {
  const parsed = parseAspectOptions(fromDesignOptionsSchema, options, 'ConformanceAspect.fromDesign');
  // compilePolicyData validates the design (a file is validated as it is read): an object is named as the
  // aspect's argument.
  const loaded = typeof design === 'string' ? await loadDesign(design) : design;
  return {
    engine: await PolicyEngine.load(),
    data: compilePolicyData(
      loaded,
      typeof design === 'string' ? design : 'ConformanceAspect.fromDesign: the design object',
    ),
    description:
      typeof design === 'string' ? `design ${design} (unsigned, local)` : 'design object (unsigned, local)',
    signed: false,
    options: parsed,
  };
}
