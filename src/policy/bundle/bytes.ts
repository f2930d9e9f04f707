// A growable byte buffer, for output built a few bytes at a time (the canonical JSON renderer).
export class Bytes {
  buf = Buffer.allocUnsafe(64);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  bytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.room(n);
    // Most tokens are a few bytes: a loop beats making a subarray for each.
    if (n <= 32) {
      const buf = this.buf;
      let at = this.length;
      for (let i = start; i < end; i++) buf[at++] = src[i]!;
    } else {
      this.buf.set(src.subarray(start, end), this.length);
    }
    this.length += n;
  }
}
