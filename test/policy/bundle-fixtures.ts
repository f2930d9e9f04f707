// Shared by the bundle tests: RSA keys generated at test time, and a small stand-in policy compiled by the
// real opa, so bundle mechanics are tested independently of the conformance policy.
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { PolicySources } from '../../src/policy/bundle/build.js';
import { readTarGz, type TarEntry } from '../../src/policy/bundle/tar.js';
import { writeTarGz } from '../../src/policy/bundle/tar-write.js';

export interface TestKeys {
  privatePem: string;
  publicPem: string;
}

export function generateTestKeys(): TestKeys {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A stand-in policy with the real entrypoints: counts changes and lists creations of unsanctioned kinds. */
export const STAND_IN_REGO = `package tfgate.conformance

kind_of(type) := data.tfgate.catalog[type]

plan := {
  "findings": [f |
    some rc in input.resource_changes
    "create" in rc.change.actions
    kind := kind_of(rc.type)
    not kind in data.tfgate.sanctioned_kinds
    f := {"rule": "unsanctioned_creation", "address": rc.address, "kind": kind}
  ],
  "counts": {"resource_changes": count(input.resource_changes)},
}

drift := {"findings": []}
`;

export const STAND_IN_DATA = {
  package_id: 'payments',
  sanctioned_kinds: ['queue'],
  capabilities: [],
  catalog: { aws_sqs_queue: 'queue', aws_s3_bucket: 'object_storage' },
};

let compiled: Promise<PolicySources> | undefined;

/** Compile the stand-in policy to wasm with the real opa (once per test file). */
export function standInPolicy(): Promise<PolicySources> {
  compiled ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tfgate-policy-'));
    try {
      await mkdir(join(dir, 'tfgate'));
      await writeFile(join(dir, 'tfgate', 'conformance.rego'), STAND_IN_REGO);
      await execa(
        'opa',
        [
          'build',
          '-t',
          'wasm',
          '-e',
          'tfgate/conformance/plan',
          '-e',
          'tfgate/conformance/drift',
          '-o',
          'out.tar.gz',
          'tfgate',
        ],
        { cwd: dir },
      );
      const wasm = readTarGz(await readFile(join(dir, 'out.tar.gz'))).find((e) => e.name === 'policy.wasm');
      if (!wasm) throw new Error('opa build -t wasm produced no policy.wasm');
      return {
        regoFiles: [{ name: 'tfgate/conformance.rego', source: Buffer.from(STAND_IN_REGO) }],
        wasm: wasm.data,
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return compiled;
}

/** Rewrite a bundle's entries (to tamper with it) and pack it again. */
export function rewriteBundle(bundle: Buffer, edit: (entries: TarEntry[]) => TarEntry[]): Buffer {
  return writeTarGz(edit(readTarGz(bundle)));
}

export function entry(bundle: Buffer, name: string): Buffer {
  const found = readTarGz(bundle).find((e) => e.name === name);
  if (!found) throw new Error(`no ${name} in bundle`);
  return found.data;
}

/** Write a bundle's files into a directory, as `opa sign` and `opa build` read them. */
export async function extractBundle(
  bundle: Buffer,
  dir: string,
  skip: (name: string) => boolean = () => false,
) {
  for (const e of readTarGz(bundle)) {
    if (skip(e.name)) continue;
    const path = join(dir, e.name);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, e.data);
  }
}
