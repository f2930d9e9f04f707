// The fuzz targets: each a generator of hostile input and a check that the input is refused or accepted within
// bounds, never with a crash other than a BundleVerificationError; where accepted, with exactly what the
// honest input gives (verifier), what Go reads (tar reader), or what the reference digest gives (canonical JSON).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import { isDeepStrictEqual } from 'node:util';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { BundleVerificationError } from '../../../src/errors/index.js';
import { assembleBundle } from '../../../src/policy/bundle/build.js';
import {
  CanonicalJsonError,
  type CanonicalRendering,
  renderCanonicalJson,
} from '../../../src/policy/bundle/canonical-json.js';
import { readCanonicalJson } from '../../../src/policy/bundle/canonical-read.js';
import { readTarGz, type TarEntry } from '../../../src/policy/bundle/tar.js';
import { writeTarGz } from '../../../src/policy/bundle/tar-write.js';
import { type VerifiedBundle, verifyBundle } from '../../../src/policy/bundle/verify.js';
import { generateTestKeys, STAND_IN_DATA, STAND_IN_REGO } from '../bundle-fixtures.js';
import { bundleBytesArb, jsonishTextArb, tarArb } from './arbitraries.js';
import { referenceCanonicalDigest, referenceValue } from './canonical-reference.js';

export interface FuzzTarget<T> {
  arbitrary: fc.Arbitrary<T>;
  check(input: T): void | Promise<void>;
  /** The input as bytes, for a reproducer file. */
  bytes(input: T): Buffer;
  close?(): void;
}

/** No single input may take longer: the bound a bundle refusal must meet (README, Security). */
const CASE_LIMIT_MS = 2000;

function refusedProperly(error: unknown): void {
  if (!(error instanceof BundleVerificationError)) {
    throw new Error(`refused with ${String(error)} instead of a BundleVerificationError`, { cause: error });
  }
}

async function timed(what: () => unknown): Promise<void> {
  const started = performance.now();
  await what();
  const took = performance.now() - started;
  if (took > CASE_LIMIT_MS) throw new Error(`took ${took.toFixed(0)} ms (the bound is ${CASE_LIMIT_MS} ms)`);
}

/** A genuine signed bundle of the stand-in package; the wasm only needs its magic number here. */
function genuineBundle() {
  const keys = generateTestKeys();
  const bundle = assembleBundle(
    {
      packageId: 'payments',
      data: STAND_IN_DATA,
      policy: {
        regoFiles: [{ name: 'tfgate/conformance.rego', source: Buffer.from(STAND_IN_REGO) }],
        wasm: Buffer.from('\0asm\u0001\0\0\0', 'latin1'),
      },
    },
    { signingKeyPem: keys.privatePem },
  );
  return { bundle, publicPem: keys.publicPem };
}

function checkEntries(entries: TarEntry[]): void {
  const names = new Set(entries.map((e) => e.name));
  if (names.size !== entries.length) throw new Error('two entries share a name');
  for (const e of entries) {
    if (e.name.startsWith('/') || e.name.split('/').some((s) => s === '' || s === '..' || s === '.')) {
      throw new Error(`unsafe name accepted: ${JSON.stringify(e.name)}`);
    }
  }
}

export function tarTarget(): FuzzTarget<Buffer> {
  const { bundle } = genuineBundle();
  return {
    arbitrary: bundleBytesArb(bundle),
    bytes: (input) => input,
    check: (input) =>
      timed(() => {
        try {
          checkEntries(readTarGz(input));
        } catch (error) {
          refusedProperly(error);
        }
      }),
  };
}

/** A JSON file of the genuine bundle replaced: by hostile text, or by the same document written differently. */
function jsonSwapArb(bundle: Buffer): fc.Arbitrary<Buffer> {
  const entries = readTarGz(bundle);
  const original = (name: string) => entries.find((e) => e.name === name)!.data.toString('utf8');
  const rewrites = (name: string): fc.Arbitrary<string> => {
    const text = original(name);
    const compact = JSON.stringify(JSON.parse(text));
    return fc.oneof(
      jsonishTextArb,
      // Equivalent for opa: duplicate keys (the last wins), escaped keys, other whitespace, a byte order mark.
      fc.constantFrom(
        compact,
        `\ufeff${text}`,
        `{"tfgate": {"package_id": "evil"}, ${compact.slice(1)}`,
        `${compact.slice(0, -1)}, "tfgate": {"package_id": "evil"}}`,
        compact.replace('"tfgate"', '"\\u0074fgate"'),
        compact.replace('"payments"', '"pay\\u006dents"'),
      ),
    );
  };
  return fc
    .constantFrom('data.json', '.manifest')
    .chain((name) => rewrites(name).map((text) => ({ name, text })))
    .map(({ name, text }) =>
      writeTarGz(entries.map((e) => (e.name === name ? { name, data: Buffer.from(text, 'utf8') } : e))),
    );
}

export async function verifyTarget(): Promise<FuzzTarget<Buffer>> {
  const { bundle, publicPem } = genuineBundle();
  const honest: VerifiedBundle = await verifyBundle(bundle, { publicKeyPem: publicPem });
  return {
    arbitrary: fc.oneof(bundleBytesArb(bundle), jsonSwapArb(bundle)),
    bytes: (input) => input,
    check: (input) =>
      timed(async () => {
        let verified: VerifiedBundle;
        try {
          verified = await verifyBundle(input, { publicKeyPem: publicPem, expectedPackageId: 'payments' });
        } catch (error) {
          refusedProperly(error);
          // Every refusal of the verifier says what to do about it.
          if (!(error as BundleVerificationError).hint) throw new Error(`refused without a hint: ${error}`);
          return;
        }
        // Accepted: then the rules see exactly what was signed.
        for (const key of ['data', 'manifest', 'revision', 'wasm'] as const) {
          if (!isDeepStrictEqual(verified[key], honest[key]))
            throw new Error(`accepted with a different ${key}`);
        }
      }),
  };
}

export function canonicalTarget(): FuzzTarget<string> {
  return {
    arbitrary: jsonishTextArb,
    bytes: (input) => Buffer.from(input, 'utf8'),
    check: (input) =>
      timed(() => {
        const bytes = Buffer.from(input, 'utf8');
        let rendering: CanonicalRendering | undefined;
        let expected: string | undefined;
        try {
          rendering = renderCanonicalJson(bytes);
        } catch (error) {
          if (!(error instanceof CanonicalJsonError)) throw error;
        }
        try {
          expected = referenceCanonicalDigest(bytes).toString('hex');
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
        }
        const actual = rendering && createHash('sha256').update(rendering.bytes).digest('hex');
        if (actual !== expected)
          throw new Error(`digest ${actual ?? 'refused'}, reference ${expected ?? 'refused'}`);
        if (!rendering) return;
        // What the verifier hands to the rules means what the text means, as Go reads it (lone surrogates
        // are U+FFFD); read both ways, with JSON.parse where it is safe and with the reader that avoids it.
        const meaning = referenceValue(bytes);
        if (!isDeepStrictEqual(readCanonicalJson(rendering), meaning)) {
          throw new Error('the verifier reads the rendering as another value than the text');
        }
        if (!isDeepStrictEqual(readCanonicalJson({ ...rendering, escapedKeys: true }), meaning)) {
          throw new Error('the canonical reader reads the rendering as another value than the text');
        }
      }),
  };
}

/** Go's archive/tar, through test/interop/go-tar (built by the test), one archive per line. */
class GoTarReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: Interface;
  private readonly waiting: Array<(line: string) => void> = [];

  constructor(binary: string) {
    this.child = spawn(binary, [], { stdio: 'pipe' });
    this.lines = createInterface({ input: this.child.stdout });
    this.lines.on('line', (line) => this.waiting.shift()?.(line));
  }

  read(gz: Buffer): Promise<{ files?: Array<{ name: string; sha256: string }>; error?: string }> {
    return new Promise((resolve) => {
      this.waiting.push((line) => resolve(JSON.parse(line)));
      this.child.stdin.write(`${gz.toString('base64')}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
  }
}

/** Where tfgate accepts an archive, Go (and so opa) reads the same regular files with the same bytes. */
export function goTarTarget(goTarBinary: string): FuzzTarget<Buffer> {
  const go = new GoTarReader(goTarBinary);
  const { bundle } = genuineBundle();
  return {
    arbitrary: fc.oneof(
      tarArb.map((t) => gzipSync(t)),
      bundleBytesArb(bundle),
    ),
    bytes: (input) => input,
    close: () => go.close(),
    check: async (input) => {
      let ours: TarEntry[];
      try {
        ours = readTarGz(input);
      } catch (error) {
        refusedProperly(error);
        return;
      }
      const theirs = await go.read(input);
      if (theirs.error !== undefined) throw new Error(`tfgate accepted what Go refuses: ${theirs.error}`);
      const mine = ours.map((e) => ({
        name: e.name,
        sha256: createHash('sha256').update(e.data).digest('hex'),
      }));
      const goFiles = (theirs.files ?? []).map((f) => ({
        name: f.name.replace(/^\//, ''),
        sha256: f.sha256,
      }));
      if (!isDeepStrictEqual(mine, goFiles)) {
        throw new Error(`tfgate read ${JSON.stringify(mine)}, Go read ${JSON.stringify(goFiles)}`);
      }
    },
  };
}
