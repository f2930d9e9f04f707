// Content negotiation of GET /public-key (JSON or PEM) by the Accept header: q=0 refuses a type.
import { describe, expect, it } from 'vitest';
import { preferredType } from '../../src/service/http/accept.js';

const OFFERED = ['application/json', 'application/x-pem-file'] as const;

describe('preferredType', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['application/x-pem-file', 'application/x-pem-file'],
    ['APPLICATION/X-PEM-FILE', 'application/x-pem-file'],
    // The case that was wrong: a type refused with q=0 was chosen because the header mentioned it.
    ['application/x-pem-file;q=0', 'application/json'],
    ['application/x-pem-file; q=0, */*', 'application/json'],
    ['application/json;q=0.5, application/x-pem-file', 'application/x-pem-file'],
    ['application/json, application/x-pem-file;q=0.9', 'application/json'],
    // Named beats reached by a wildcard on a tie (curl's */* plus the PEM asked for).
    ['application/x-pem-file, */*', 'application/x-pem-file'],
    ['application/*, application/x-pem-file', 'application/x-pem-file'],
    ['text/html', 'application/json'],
    ['application/x-pem-file;q=abc', 'application/json'],
    ['application/x-pem-file;q=2', 'application/json'],
  ] as const)('Accept %j gives %s', (accept, expected) => {
    expect(preferredType(accept, [...OFFERED] as [string, ...string[]])).toBe(expected);
  });
});
