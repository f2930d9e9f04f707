import { expect, it } from 'vitest';
import { primeOnce } from '../../src/plan/prime.js';
import { JsonScanner, valueNode } from '../../src/plan/scanner/index.js';

it('primes the scanner once per process, with documents it accepts in every chunking', () => {
  const scans: boolean[] = [];
  const results: unknown[] = [];
  const factory = (streamed: boolean) => {
    scans.push(streamed);
    const scanner = new JsonScanner(valueNode());
    const end = scanner.end.bind(scanner);
    scanner.end = () => {
      const value = end();
      results.push(value);
      return value;
    };
    return scanner;
  };
  primeOnce(factory);
  expect(scans).toEqual([false, false, false, true]);
  // Compact and pretty-printed, whole and cut into chunks: the same document each time.
  expect(results).toHaveLength(4);
  for (const value of results) expect(value).toEqual(results[0]);
  expect((results[0] as { resource_changes: unknown[] }).resource_changes).toHaveLength(3);
  primeOnce(factory);
  expect(scans).toHaveLength(4);
});
