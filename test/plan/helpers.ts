// Chunking helpers: the same bytes fed whole, one byte at a time, and in seeded random sizes.

export type Chunking = 'whole' | 'bytes' | 'random';
export const CHUNKINGS: readonly Chunking[] = ['whole', 'bytes', 'random'];

/** Deterministic PRNG (mulberry32) so a failing chunking can be reproduced. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function splitBytes(bytes: Buffer, chunking: Chunking, seed = 1): Buffer[] {
  if (chunking === 'whole') return [bytes];
  const chunks: Buffer[] = [];
  const random = seededRandom(seed);
  for (let i = 0; i < bytes.length; ) {
    const size = chunking === 'bytes' ? 1 : 1 + Math.floor(random() * random() * 97);
    chunks.push(bytes.subarray(i, i + size));
    i += size;
  }
  return chunks;
}

export async function* streamOf(bytes: Buffer | string, chunking: Chunking = 'whole', seed = 1) {
  for (const chunk of splitBytes(Buffer.from(bytes), chunking, seed)) yield chunk;
}
