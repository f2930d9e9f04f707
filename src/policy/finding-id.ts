import { createHash } from 'node:crypto';

/**
 * A finding's stable id: the same rule on the same address of the same package gives the same id, so an
 * acknowledgement sticks across checks. `f_` and the first 20 hex digits of SHA-256 over the three parts
 * joined by NUL (which none of them can contain, so no two triples collide by concatenation).
 */
export function findingId(packageId: string, rule: string, address: string): string {
  return `f_${createHash('sha256').update(`${packageId}\0${rule}\0${address}`).digest('hex').slice(0, 20)}`;
}
