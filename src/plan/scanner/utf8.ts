// UTF-8 validation of a chunked input, natively per chunk: a multi-byte sequence cut by a chunk's end is
// kept and completed by the next chunk's first bytes.
import { isUtf8 } from 'node:buffer';

export class Utf8Validator {
  private carry: Buffer | undefined;
  /** Absolute offset of the carried sequence's first byte. */
  private carryAt = 0;

  /**
   * Validate `buf`, whose first byte is at absolute offset `base`. Returns the absolute offset of the first
   * invalid byte (exact within a chunk, the sequence's start when it was cut), or -1.
   */
  check(buf: Buffer, base: number): number {
    const n = buf.length;
    let from = 0;
    const carry = this.carry;
    if (carry !== undefined) {
      const take = Math.min(n, sequenceLength(carry[0]!) - carry.length);
      const joined = Buffer.concat([carry, buf.subarray(0, take)]);
      if (joined.length < sequenceLength(carry[0]!)) {
        this.carry = joined;
        return -1;
      }
      this.carry = undefined;
      if (!isUtf8(joined)) return this.carryAt;
      from = take;
    }
    // A lead byte among the last three whose sequence does not fit: carried to the next chunk.
    let end = n;
    for (let k = n - 1; k >= from && k >= n - 3; k--) {
      const c = buf[k]!;
      if (c < 0x80) break;
      if (c >= 0xc0) {
        if (k + sequenceLength(c) > n) end = k;
        break;
      }
    }
    if (!isUtf8(buf.subarray(from, end))) return base + firstInvalidUtf8(buf, from, end);
    if (end < n) {
      this.carry = Buffer.from(buf.subarray(end));
      this.carryAt = base + end;
    }
    return -1;
  }

  /** At the input's end: the offset of a sequence left incomplete, or -1. */
  incompleteAt(): number {
    return this.carry === undefined ? -1 : this.carryAt;
  }
}

/** Bytes in the UTF-8 sequence a byte starts; 1 for ASCII and for bytes that cannot start one. */
function sequenceLength(c: number): number {
  if (c < 0xc2) return 1;
  if (c < 0xe0) return 2;
  if (c < 0xf0) return 3;
  return c < 0xf5 ? 4 : 1;
}

/** Index of the first byte of buf[from, end) that does not start a valid UTF-8 sequence (error path). */
function firstInvalidUtf8(buf: Buffer, from: number, end: number): number {
  for (let i = from; i < end; ) {
    const len = sequenceLength(buf[i]!);
    if (i + len > end || !isUtf8(buf.subarray(i, i + len))) return i;
    i += len;
  }
  return end;
}
