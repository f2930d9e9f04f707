// The printable table against Go's own unicode.IsPrint (the Go that builds terraform and tofu here), code
// point by code point: an instance key's escapes depend on it, and Node's Unicode tables are newer.
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { GO_UNICODE_VERSION } from '../../src/plan/go-printable.js';
import { isGoPrintable } from '../../src/plan/instance-key.js';
import { REPO_ROOT } from '../helpers/terraform.js';

describe('isGoPrintable', () => {
  it("equals Go's unicode.IsPrint on every code point", async () => {
    const { stdout } = await execa('go', ['run', join(REPO_ROOT, 'scripts', 'go-printable', 'main.go')]);
    const [version, ...ranges] = stdout.trim().split('\n');
    expect(version).toBe(GO_UNICODE_VERSION);
    const go = new Uint8Array(0x110000);
    for (const range of ranges) {
      const [first, last] = range.split(' ').map((hex) => Number.parseInt(hex, 16));
      go.fill(1, first!, last! + 1);
    }
    const differences: string[] = [];
    for (let codePoint = 0; codePoint < go.length; codePoint++) {
      if (isGoPrintable(codePoint) !== (go[codePoint] === 1)) differences.push(codePoint.toString(16));
    }
    expect(differences).toEqual([]);
  }, 120_000);
});
