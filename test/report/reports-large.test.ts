// Reports of plans with very many findings, or one enormous address: every format renders, and the text
// table's size grows with what it shows, never with rows times the widest cell.
import { describe, expect, it } from 'vitest';
import type { EvalFinding } from '../../src/model/index.js';
import { type RootsReport, renderReport } from '../../src/report/index.js';
import { evaluation } from './fixtures.js';

const plain = { color: false };
const finding = (i: number, address = `terraform_data.x${i}`): EvalFinding => ({
  id: `f-${i}`,
  rule: 'unsanctioned_creation',
  severity: 'high',
  address,
  type: 'terraform_data',
  kind: 'generic_data',
  actions: ['create'],
  message: `creates ${address}`,
});

describe('large reports', () => {
  it('150,000 findings: text and markdown render, for one plan and for a root (nothing spreads them into one call)', () => {
    const result = evaluation({ findings: Array.from({ length: 150_000 }, (_, i) => finding(i)) });
    const roots: RootsReport = {
      kind: 'roots',
      decision: 'block',
      minSeverity: 'high',
      roots: [{ root: 'app', plan: 'app/plan.json', subject: { kind: 'evaluation', result } }],
    };
    for (const format of ['text', 'markdown'] as const) {
      const one = renderReport({ kind: 'evaluation', result }, format, plain);
      expect(one, format).toContain('terraform_data.x149999');
      expect(renderReport(roots, format, plain), format).toContain('terraform_data.x149999');
    }
  });

  it('a 1 MB address pads no other line of the text table', () => {
    const huge = `terraform_data.x["${'a'.repeat(1024 * 1024)}"]`;
    const findings = [finding(0, huge), ...Array.from({ length: 2_000 }, (_, i) => finding(i + 1))];
    const text = renderReport({ kind: 'evaluation', result: evaluation({ findings }) }, 'text', plain);
    // The huge address appears twice (its cell and its message); every other line stays short.
    expect(text.length).toBeLessThan(2 * huge.length + 2_000 * 400);
    const short = text.split('\n').find((line) => line.includes('terraform_data.x7 '));
    expect(short?.length).toBeLessThan(400);
  });
});
