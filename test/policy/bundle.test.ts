import { createHash, generateKeyPairSync } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { BundleVerificationError, UsageError } from '../../src/errors/index.js';
import { assembleBundle, fileDigest, type PolicySources } from '../../src/policy/bundle/build.js';
import { canonicalJsonDigest, renderCanonicalJson } from '../../src/policy/bundle/canonical-json.js';
import { readCanonicalJson } from '../../src/policy/bundle/canonical-read.js';
import { loadSigningKey, loadVerificationKey, signCompactJws } from '../../src/policy/bundle/jws.js';
import { verifyBundle } from '../../src/policy/bundle/verify.js';
import {
  entry,
  generateTestKeys,
  rewriteBundle,
  STAND_IN_DATA,
  standInPolicy,
  type TestKeys,
} from './bundle-fixtures.js';

let keys: TestKeys;
let otherKeys: TestKeys;
let policy: PolicySources;
let bundle: Buffer;

function build(
  overrides: { data?: Record<string, unknown>; scope?: string; keyId?: string; account?: string } = {},
): Buffer {
  const data = overrides.data ?? STAND_IN_DATA;
  return assembleBundle(
    { packageId: String(data.package_id), account: overrides.account, data, policy },
    { signingKeyPem: keys.privatePem, keyId: overrides.keyId, scope: overrides.scope },
  );
}

async function refusal(bytes: Buffer, options: Parameters<typeof verifyBundle>[1] = {}) {
  const error = await verifyBundle(bytes, { publicKeyPem: keys.publicPem, ...options }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BundleVerificationError);
  return error as BundleVerificationError;
}

beforeAll(async () => {
  keys = generateTestKeys();
  otherKeys = generateTestKeys();
  policy = await standInPolicy();
  bundle = build();
});

describe('bundle round trip', () => {
  it('verifies what it built and returns the manifest, data, wasm and key id', async () => {
    const verified = await verifyBundle(bundle, {
      publicKeyPem: keys.publicPem,
      expectedPackageId: 'payments',
    });
    expect(verified.signed).toBe(true);
    expect(verified.packageId).toBe('payments');
    expect(verified.data).toEqual(STAND_IN_DATA);
    expect(verified.wasm.equals(policy.wasm)).toBe(true);
    expect(verified.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(verified.scope).toBe('payments');
    expect(verified.revision).toMatch(/^[0-9a-f]{20}$/);
    expect(verified.manifest.roots).toEqual(['tfgate']);
    expect(verified.manifest.metadata.entrypoints).toEqual({
      plan: 'tfgate/conformance/plan',
      drift: 'tfgate/conformance/drift',
    });
    // Entrypoints stay out of `wasm`, so an opa without a wasm engine loads the bundle.
    expect(verified.manifest).not.toHaveProperty('wasm');
    expect(verified.files.map((f) => f.name)).toEqual([
      '.manifest',
      'data.json',
      'policy.wasm',
      'tfgate/conformance.rego',
    ]);
  });

  it('writes .manifest and data.json in the canonical form opa hashes, so their raw digest is the signed one', async () => {
    for (const name of ['.manifest', 'data.json']) {
      const raw = entry(bundle, name);
      expect(canonicalJsonDigest(raw).equals(createHash('sha256').update(raw).digest())).toBe(true);
    }
  });

  it('verifies a bundle with indented structured files (as tfgate wrote them before) to the same contents', async () => {
    const indented = rewriteBundle(bundle, (entries) =>
      entries.map((e) =>
        e.name === 'data.json' || e.name === '.manifest'
          ? { ...e, data: Buffer.from(`${JSON.stringify(JSON.parse(e.data.toString()), null, 2)}\n`) }
          : e,
      ),
    );
    expect(entry(indented, 'data.json').equals(entry(bundle, 'data.json'))).toBe(false);
    const before = await verifyBundle(bundle, { publicKeyPem: keys.publicPem });
    const after = await verifyBundle(indented, { publicKeyPem: keys.publicPem });
    const withoutSizes = (v: typeof before) => ({ ...v, files: v.files.map(({ size: _, ...f }) => f) });
    expect(withoutSizes(after)).toEqual(withoutSizes(before));
  });

  it('reads keys written with escapes as what they say, from a canonical data.json taken as it is', async () => {
    // A key cache poisoned as nodejs/node#63785 needs (see below), then a key JSON.parse would misread.
    JSON.parse('{"aq_v8_63785":0,"b\\\\":0}');
    const extra = { aq_v8_63785: 1, 'b\n': 2 };
    const data = { ...STAND_IN_DATA, extra, more: { 'a"b': 3, 'q\\': { 'a:b': '\\":' } } };
    const verified = await verifyBundle(build({ data }), { publicKeyPem: keys.publicPem });
    expect(verified.data).toEqual(data);
  });

  it('puts the policy data under data.tfgate, as OPA maps a root data.json', () => {
    expect(JSON.parse(entry(bundle, 'data.json').toString())).toEqual({ tfgate: STAND_IN_DATA });
  });

  it('is deterministic, and the revision follows the content', async () => {
    expect(build().equals(bundle)).toBe(true);
    const changed = build({ data: { ...STAND_IN_DATA, sanctioned_kinds: ['queue', 'object_storage'] } });
    const [a, b] = await Promise.all([
      verifyBundle(bundle, { publicKeyPem: keys.publicPem }),
      verifyBundle(changed, { publicKeyPem: keys.publicPem }),
    ]);
    expect(a.revision).not.toBe(b.revision);
  });

  it('signs one RS256 compact JWS with kid in the header and files, keyid and scope in the payload', () => {
    const { signatures } = JSON.parse(entry(bundle, '.signatures.json').toString()) as {
      signatures: string[];
    };
    expect(signatures).toHaveLength(1);
    const [header, payload] = signatures[0]!
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toEqual({ kid: expect.any(String), alg: 'RS256' });
    expect(payload.keyid).toBe(header.kid);
    expect(payload.scope).toBe('payments');
    expect(payload.files.map((f: { name: string }) => f.name)).toEqual([
      '.manifest',
      'data.json',
      'policy.wasm',
      'tfgate/conformance.rego',
    ]);
    for (const f of payload.files)
      expect(f).toEqual({
        name: f.name,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        algorithm: 'SHA-256',
      });
  });
});

describe('verifyBundle called wrongly from JavaScript', () => {
  it('says which option was meant, and that a path is not the bytes (both read as "no public key" before)', async () => {
    await expect(verifyBundle(bundle, { publicKeyPath: 'pub.pem' } as never)).rejects.toMatchObject({
      code: 'invalid_option',
      exitCode: 1,
      message: expect.stringMatching(
        /^verifyBundle: unknown option "publicKeyPath" \(did you mean "publicKeyPem"\?\)/,
      ),
    });
    await expect(
      verifyBundle('bundle.tar.gz' as never, { publicKeyPem: keys.publicPem }),
    ).rejects.toMatchObject({
      code: 'invalid_option',
      message: 'verifyBundle: the bundle must be its bytes (a Uint8Array or Buffer), not a string',
    });
    // The options it knows still verify.
    await expect(
      verifyBundle(bundle, { publicKeyPem: keys.publicPem, expectedPackageId: undefined, limits: {} }),
    ).resolves.toMatchObject({ signed: true });
  });
});

describe('bundle verification refuses', () => {
  it('a tampered file, naming it', async () => {
    const tampered = rewriteBundle(bundle, (entries) =>
      entries.map((e) =>
        e.name === 'tfgate/conformance.rego' ? { ...e, data: Buffer.from(`${e.data}\nextra := 1\n`) } : e,
      ),
    );
    const error = await refusal(tampered);
    expect(error.code).toBe('digest_mismatch');
    expect(error.message).toContain('tfgate/conformance.rego');
    expect(error.exitCode).toBe(4);
    // Every refusal says what to do: here, the check has nothing more exact than "fetch it again".
    expect(error.hint).toMatch(/^fetch the bundle again \(`tfgate bundle pull --package <id>`\)/);
  });

  it('tampered data, but not a reformatting of the same JSON (structured files hash canonically)', async () => {
    const reformatted = rewriteBundle(bundle, (entries) =>
      entries.map((e) =>
        e.name === 'data.json'
          ? { ...e, data: Buffer.from(JSON.stringify(JSON.parse(e.data.toString()))) }
          : e,
      ),
    );
    await expect(verifyBundle(reformatted, { publicKeyPem: keys.publicPem })).resolves.toMatchObject({
      signed: true,
    });
    const altered = rewriteBundle(bundle, (entries) =>
      entries.map((e) =>
        e.name === 'data.json'
          ? {
              ...e,
              data: Buffer.from(
                JSON.stringify({
                  tfgate: { ...STAND_IN_DATA, sanctioned_kinds: ['queue', 'object_storage'] },
                }),
              ),
            }
          : e,
      ),
    );
    const error = await refusal(altered);
    expect(error.code).toBe('digest_mismatch');
    expect(error.message).toContain('data.json');
  });

  it('a file the signature does not list, naming it', async () => {
    const added = rewriteBundle(bundle, (entries) => [
      ...entries,
      { name: 'tfgate/backdoor.rego', data: Buffer.from('package tfgate.conformance\n') },
    ]);
    const error = await refusal(added);
    expect(error.code).toBe('file_not_signed');
    expect(error.message).toContain('tfgate/backdoor.rego');
  });

  it('a file dropped from the signature, naming it', async () => {
    const key = loadSigningKey(keys.privatePem);
    const resigned = rewriteBundle(bundle, (entries) =>
      entries.map((e) => {
        if (e.name !== '.signatures.json') return e;
        const token = (JSON.parse(e.data.toString()) as { signatures: string[] }).signatures[0]!;
        const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
        payload.files = payload.files.filter((f: { name: string }) => f.name !== 'policy.wasm');
        return {
          ...e,
          data: Buffer.from(JSON.stringify({ signatures: [signCompactJws({ kid: 'k' }, payload, key)] })),
        };
      }),
    );
    const error = await refusal(resigned);
    expect(error.code).toBe('file_not_signed');
    expect(error.message).toContain('policy.wasm');
  });

  it('a listed file that is missing, naming it', async () => {
    const dropped = rewriteBundle(bundle, (entries) => entries.filter((e) => e.name !== 'policy.wasm'));
    const error = await refusal(dropped);
    expect(error.code).toBe('file_missing');
    expect(error.message).toContain('policy.wasm');
  });

  it('a signature made with another key', async () => {
    const error = await refusal(bundle, { publicKeyPem: otherKeys.publicPem });
    expect(error.code).toBe('signature_invalid');
    expect(error.message).toMatch(/does not verify/);
  });

  it('a signature with alg "none"', async () => {
    const forged = rewriteBundle(bundle, (entries) =>
      entries.map((e) => {
        if (e.name !== '.signatures.json') return e;
        const [, payload] = (JSON.parse(e.data.toString()) as { signatures: string[] }).signatures[0]!.split(
          '.',
        );
        const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
        return { ...e, data: Buffer.from(JSON.stringify({ signatures: [`${header}.${payload}.`] })) };
      }),
    );
    expect((await refusal(forged)).code).toBe('signature_algorithm');
  });

  it('a scope other than the expected one', async () => {
    const error = await refusal(bundle, { scope: 'ledger' });
    expect(error.code).toBe('scope_mismatch');
    expect(error.message).toContain('"payments"');
    // Signed for another scope than its own package, verified without an explicit scope.
    const other = await refusal(build({ scope: 'someone-else' }));
    expect(other.code).toBe('scope_mismatch');
    // Each says how to fix it, not only what is wrong.
    expect(error.hint).toMatch(/use the bundle signed for "ledger"/);
    expect(other.hint).toMatch(/rebuild it without --scope/);
  });

  it('a bundle for another package', async () => {
    const error = await refusal(bundle, { expectedPackageId: 'ledger' });
    expect(['scope_mismatch', 'bundle_package_mismatch']).toContain(error.code);
    expect(error.message).toContain('ledger');
    expect(error.hint).toMatch(/"ledger"/);
    // check and the aspect have no --scope: the hint names what was signed and how to get the right bundle.
    expect(error.hint).not.toContain('--scope');
    expect(error.hint).toContain('tfgate bundle pull --package ledger');
  });

  it("another account's bundle of a package with the same id, when an account is expected", async () => {
    // One platform key signs every account's bundles: the package id alone let account "acme"'s
    // "payments" (sanctioning anything) pass for account "globex"'s "payments".
    const acme = build({ account: 'acme' });
    const error = await refusal(acme, { expectedPackageId: 'payments', expectedAccount: 'globex' });
    expect(error.code).toBe('bundle_account_mismatch');
    expect(error.message).toBe('bundle is for account "acme", not "globex"');
    expect(error.hint).toContain('tfgate bundle pull');
    await expect(
      verifyBundle(acme, { publicKeyPem: keys.publicPem, expectedAccount: 'acme' }),
    ).resolves.toMatchObject({ account: 'acme', packageId: 'payments' });
  });

  it('a bundle naming no account, when an account is expected', async () => {
    const error = await refusal(bundle, { expectedAccount: 'globex' });
    expect(error.code).toBe('bundle_account_mismatch');
    expect(error.message).toBe('bundle names no account, but account "globex" was expected');
    await expect(verifyBundle(bundle, { publicKeyPem: keys.publicPem })).resolves.toMatchObject({
      account: undefined,
    });
  });

  it('a manifest whose account was rewritten after signing', async () => {
    const acme = build({ account: 'acme' });
    const rewritten = rewriteBundle(acme, (entries) =>
      entries.map((e) =>
        e.name === '.manifest'
          ? { ...e, data: Buffer.from(e.data.toString().replace('"account":"acme"', '"account":"globex"')) }
          : e,
      ),
    );
    expect(rewritten.equals(acme)).toBe(false);
    const error = await refusal(rewritten, { expectedAccount: 'globex' });
    expect(error.code).not.toBe('bundle_account_mismatch');
    expect(error.message).toContain('.manifest');
  });

  describe('a signed manifest tfgate would not have written (opa reads it otherwise)', () => {
    /** The bundle with its .manifest edited, then signed again with the platform key: a genuine signature. */
    function withManifest(edit: (manifest: Record<string, unknown>) => void): Buffer {
      const key = loadSigningKey(keys.privatePem);
      const edited = rewriteBundle(bundle, (entries) =>
        entries.map((e) => {
          if (e.name !== '.manifest') return e;
          const manifest = JSON.parse(e.data.toString()) as Record<string, unknown>;
          edit(manifest);
          return { ...e, data: Buffer.from(JSON.stringify(manifest)) };
        }),
      );
      return rewriteBundle(edited, (entries) => {
        const files = entries.filter((e) => e.name !== '.signatures.json');
        const payload = {
          files: files.map((f) => ({
            name: f.name,
            hash: fileDigest(f).toString('hex'),
            algorithm: 'SHA-256',
          })),
          scope: 'payments',
        };
        const token = signCompactJws({ kid: 'k' }, payload, key);
        return [
          ...files,
          { name: '.signatures.json', data: Buffer.from(JSON.stringify({ signatures: [token] })) },
        ];
      });
    }

    it('is still accepted unedited (the re-signing itself is sound)', async () => {
      await expect(
        verifyBundle(
          withManifest(() => {}),
          { publicKeyPem: keys.publicPem },
        ),
      ).resolves.toMatchObject({ signed: true });
    });

    it('with a wasm list: opa would load policy.wasm as the policy', async () => {
      const error = await refusal(
        withManifest((m) => {
          m.wasm = [{ entrypoint: 'tfgate/conformance/plan', module: '/policy.wasm' }];
        }),
      );
      expect(error.code).toBe('bundle_invalid_manifest');
      expect(error.message).toBe(
        '.manifest: "wasm" is not written by tfgate, and opa would read the bundle differently from tfgate with it',
      );
    });

    it('with roots beyond tfgate', async () => {
      const error = await refusal(
        withManifest((m) => {
          m.roots = ['tfgate', 'system'];
        }),
      );
      expect(error.code).toBe('bundle_invalid_manifest');
      expect(error.message).toContain('roots must be ["tfgate"], not ["tfgate","system"]');
    });
  });

  it('an unsigned bundle, unless explicitly allowed', async () => {
    const unsigned = rewriteBundle(bundle, (entries) => entries.filter((e) => e.name !== '.signatures.json'));
    const error = await refusal(unsigned);
    expect(error.code).toBe('bundle_unsigned');
    expect(error.message).toContain('.signatures.json');
    const allowed = await verifyBundle(unsigned, { allowUnsigned: true });
    expect(allowed.signed).toBe(false);
    expect(allowed.keyId).toBeUndefined();
    // The opt-in does not weaken a signed bundle: its signature is still checked.
    expect((await refusal(bundle, { allowUnsigned: true, publicKeyPem: otherKeys.publicPem })).code).toBe(
      'signature_invalid',
    );
  });

  it('a signed bundle when no public key is given', async () => {
    const error = await verifyBundle(bundle, {}).catch((e: BundleVerificationError) => e);
    expect(error).toMatchObject({ code: 'public_key_required' });
  });

  it('a public key that cannot verify RS256 (not PEM, not RSA, a private key, too short): no decision, exit 4', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    const short = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    for (const [pem, message] of [
      ['not a key', /not a PEM public key/],
      [ec, /is a ec key; RS256 needs RSA/],
      [keys.privatePem, /is a private key/],
      [short, /1024-bit RSA key; RS256 needs at least 2048 bits/],
    ] as const) {
      // Both ways in: the key loader alone, and a whole verification.
      expect(() => loadVerificationKey(pem)).toThrow(BundleVerificationError);
      const error = await refusal(bundle, { publicKeyPem: pem });
      expect(error).toMatchObject({ code: 'invalid_public_key', exitCode: 4 });
      expect(error.message).toMatch(message);
    }
  });

  it('a signing key that cannot sign RS256: a usage error, exit 1', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    for (const pem of ['not a key', ec]) {
      expect(() => loadSigningKey(pem)).toThrow(UsageError);
      expect(() => loadSigningKey(pem)).toThrow(expect.objectContaining({ exitCode: 1 }));
    }
  });

  it('a JWS whose header is not JSON, or whose critical header tfgate does not know', async () => {
    const withHeader = (header: string) =>
      rewriteBundle(bundle, (entries) =>
        entries.map((e) => {
          if (e.name !== '.signatures.json') return e;
          const [, payload, signature] = (
            JSON.parse(e.data.toString()) as { signatures: string[] }
          ).signatures[0]!.split('.');
          const h = Buffer.from(header).toString('base64url');
          return {
            ...e,
            data: Buffer.from(JSON.stringify({ signatures: [`${h}.${payload}.${signature}`] })),
          };
        }),
      );
    expect((await refusal(withHeader('{"alg":"RS256",}'))).code).toBe('signature_malformed');
    // An escaped key is read as what it says ("alg"), not as JSON.parse might misread it.
    expect((await refusal(withHeader('{"\\u0061lg":"none"}'))).code).toBe('signature_algorithm');
    expect((await refusal(withHeader('{"alg":"RS256","crit":["x"],"x":1}'))).code).toBe(
      'signature_malformed',
    );
  });

  it('a JWS part of 4n+1 characters is not base64url: refused as OPA refuses it, though Buffer would drop the stray one', async () => {
    const withStray = rewriteBundle(bundle, (entries) =>
      entries.map((e) => {
        if (e.name !== '.signatures.json') return e;
        const token = (JSON.parse(e.data.toString()) as { signatures: string[] }).signatures[0]!;
        const stray = 'A'.repeat((5 - (token.split('.')[2]!.length % 4)) % 4 || 4);
        return { ...e, data: Buffer.from(JSON.stringify({ signatures: [`${token}${stray}`] })) };
      }),
    );
    expect((await refusal(withStray)).code).toBe('signature_malformed');
  });

  it('a validly signed JWS with a critical header parameter (crit, or b64 that changes what is signed)', async () => {
    const key = loadSigningKey(keys.privatePem);
    for (const extra of [{ crit: ['x'], x: 1 }, { b64: true, crit: ['b64'] }, { b64: true }]) {
      const resigned = rewriteBundle(bundle, (entries) =>
        entries.map((e) => {
          if (e.name !== '.signatures.json') return e;
          const [, payload] = (
            JSON.parse(e.data.toString()) as { signatures: string[] }
          ).signatures[0]!.split('.');
          const token = signCompactJws(
            { ...extra },
            JSON.parse(Buffer.from(payload!, 'base64url').toString()),
            key,
          );
          return { ...e, data: Buffer.from(JSON.stringify({ signatures: [token] })) };
        }),
      );
      const error = await refusal(resigned);
      expect({ extra, code: error.code }).toEqual({ extra, code: 'signature_malformed' });
    }
    // The same payload re-signed without them verifies: the refusal is the header's.
    const plain = rewriteBundle(bundle, (entries) =>
      entries.map((e) => {
        if (e.name !== '.signatures.json') return e;
        const [, payload] = (JSON.parse(e.data.toString()) as { signatures: string[] }).signatures[0]!.split(
          '.',
        );
        const token = signCompactJws({}, JSON.parse(Buffer.from(payload!, 'base64url').toString()), key);
        return { ...e, data: Buffer.from(JSON.stringify({ signatures: [token] })) };
      }),
    );
    await expect(verifyBundle(plain, { publicKeyPem: keys.publicPem })).resolves.toMatchObject({
      signed: true,
    });
  });

  it.each([
    ['../evil.rego', 'traversal'],
    ['tfgate/../../evil.rego', 'traversal'],
    ['//etc/passwd', 'absolute'],
    ['C:/evil.rego', 'drive letter'],
    ['tfgate//x.rego', 'empty segment'],
  ])('an unsafe path %s (%s)', async (name) => {
    const evil = rewriteBundle(bundle, (entries) => [...entries, { name, data: Buffer.from('x') }]);
    expect((await refusal(evil)).code).toBe('bundle_unsafe_path');
  });

  it('two entries for the same path, including OPA-style "/data.json" beside "data.json"', async () => {
    const twice = rewriteBundle(bundle, (entries) => [
      ...entries,
      { name: '/data.json', data: Buffer.from('{}') },
    ]);
    expect((await refusal(twice)).code).toBe('bundle_duplicate_entry');
  });

  it('a symlink entry', async () => {
    const withLink = rewriteBundle(bundle, (entries) => [
      ...entries,
      { name: 'link.rego', data: Buffer.alloc(0) },
    ]);
    const tar = gunzipSync(withLink);
    // Find link.rego's header and make it a symlink (typeflag '2'), fixing the checksum.
    const at = tar.indexOf(Buffer.from('link.rego\0'));
    tar.write('2', at + 156, 'ascii');
    tar.write('        ', at + 148, 'ascii');
    let sum = 0;
    for (let i = at; i < at + 512; i++) sum += tar[i]!;
    tar.write(`${sum.toString(8).padStart(6, '0')}\0 `, at + 148, 'binary');
    expect((await refusal(gzipSync(tar))).code).toBe('bundle_unsafe_entry');
  });

  it('bundles over the size limits, and input that is not a gzip tarball', async () => {
    expect((await refusal(bundle, { limits: { maxCompressedBytes: 100 } })).code).toBe('bundle_too_large');
    expect((await refusal(bundle, { limits: { maxUncompressedBytes: 4096 } })).code).toBe('bundle_too_large');
    expect((await refusal(bundle, { limits: { maxFileBytes: 1024 } })).code).toBe('bundle_too_large');
    expect((await refusal(Buffer.from('not a bundle'))).code).toBe('bundle_not_gzip');
  });
});

describe('what a verified bundle hands to the rules is what opa reads', () => {
  const withDataText = (b: Buffer, text: string) =>
    rewriteBundle(b, (entries) =>
      entries.map((e) => (e.name === 'data.json' ? { ...e, data: Buffer.from(text, 'utf8') } : e)),
    );

  it('a duplicate key: the last one wins, as in opa, whatever the first one said', async () => {
    const genuine = JSON.stringify(STAND_IN_DATA);
    const text = `{"tfgate": {"package_id": "payments", "sanctioned_kinds": ["*"]}, "tfgate": ${genuine}}`;
    const verified = await verifyBundle(withDataText(bundle, text), { publicKeyPem: keys.publicPem });
    expect(verified.data).toEqual(STAND_IN_DATA);
    const swapped = `{"tfgate": ${genuine}, "tfgate": {"package_id": "payments", "sanctioned_kinds": ["*"]}}`;
    expect((await refusal(withDataText(bundle, swapped))).code).toBe('digest_mismatch');
  });

  it('a lone surrogate escape: read as U+FFFD, as opa reads it, not as the raw surrogate', async () => {
    const data = { ...STAND_IN_DATA, catalog: { ...STAND_IN_DATA.catalog, 'aws_\ufffd': 'queue' } };
    const signed = build({ data });
    // Signed with U+FFFD; written back with "\ud800", which Go (and so opa) decodes to the same U+FFFD.
    const text = JSON.stringify({ tfgate: data }).replace('\ufffd', '\\ud800');
    const verified = await verifyBundle(withDataText(signed, text), { publicKeyPem: keys.publicPem });
    expect(Object.keys(verified.data.catalog)).toContain('aws_\ufffd');
    expect(Object.keys(verified.data.catalog)).not.toContain('aws_\ud800');
  });

  it('keys written with escapes: read as opa reads them, even where V8 JSON.parse misreads them', async () => {
    // V8 12.8-14.6 (Node 24, 26): once a JSON.parse has met {"aq…":…,"b\\":…}, a later {"aq…":…,"b\n":…}
    // reads its second key as "b\\" (https://github.com/nodejs/node/issues/63785). An attacker's
    // .signatures.json is parsed before the signed data, so it could plant the first one.
    JSON.parse('{"aq_v8_63785":0,"b\\\\":0}');
    const rendering = renderCanonicalJson(Buffer.from('{"aq_v8_63785":1,"b\\n":2}'));
    expect(rendering.escapedKeys).toBe(true);
    expect(readCanonicalJson(rendering)).toEqual({ aq_v8_63785: 1, 'b\n': 2 });
    // A verified bundle's data, end to end, with keys that need escapes.
    const extra = { b: { '\n': 2 }, c: { 'x\\': 1, 'x\n': 3, '"q': 4, '\u2028': 5 } };
    const verified = await verifyBundle(build({ data: { ...STAND_IN_DATA, extra } }), {
      publicKeyPem: keys.publicPem,
    });
    expect((verified.data as unknown as { extra: unknown }).extra).toEqual(extra);
  });

  it('checks the signature before reading any file: a bad signature is reported, not the broken JSON', async () => {
    const broken = withDataText(bundle, '{"tfgate": [');
    expect((await refusal(broken, { publicKeyPem: otherKeys.publicPem })).code).toBe('signature_invalid');
    expect((await refusal(broken)).message).toContain(
      'data.json: digest mismatch (not JSON that tfgate and opa read the same way',
    );
  });

  it('refuses a JSON file over its limit from its size alone', async () => {
    const error = await refusal(bundle, { limits: { maxJsonFileBytes: 100 } });
    expect(error.code).toBe('bundle_too_large');
    expect(error.message).toMatch(
      /^(\.manifest|data\.json) is \d+ bytes; the limit for this file is 100 bytes$/,
    );
  });
});

describe('canonical JSON digest (OPA hash.go)', () => {
  it('ignores key order and whitespace but keeps number literals and array order', () => {
    const d = (s: string) => canonicalJsonDigest(Buffer.from(s)).toString('hex');
    expect(d('{"b": [1, 2], "a": "x"}')).toBe(d('{"a":"x","b":[1,2]}'));
    expect(d('{"a": 1.0}')).not.toBe(d('{"a": 1}'));
    expect(d('[1,2]')).not.toBe(d('[2,1]'));
    expect(d('\uFEFF{"a":1}')).toBe(d('{"a":1}'));
    expect(() => d('{"a":1} x')).toThrow(SyntaxError);
  });

  it('refuses nesting past 512 levels and objects past 100,000 members, which no policy data comes near', () => {
    const d = (s: string) => canonicalJsonDigest(Buffer.from(s));
    expect(() => d(`${'['.repeat(512)}${']'.repeat(512)}`)).not.toThrow();
    expect(() => d(`${'['.repeat(513)}${']'.repeat(513)}`)).toThrow(/nested deeper than 512 levels/);
    const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"${i}":0`).join(',')}}`;
    expect(() => d(members(100_000))).not.toThrow();
    expect(() => d(members(100_001))).toThrow(/an object has more than 100000 members/);
  });

  it('hashes exactly the bytes OPA writes for a known document', async () => {
    const { createHash } = await import('node:crypto');
    // Go: {, keys sorted byte-wise, ':' and ',' without spaces, U+2028 escaped, '<' not escaped.
    const expected = createHash('sha256').update('{"a":[true,null,1.50],"b":"<\\u2028>"}').digest('hex');
    expect(
      canonicalJsonDigest(Buffer.from('{ "b": "<\u2028>", "a": [true, null, 1.50] }')).toString('hex'),
    ).toBe(expected);
  });
});
