// The management commands' tests: tfgate run from source as a child process against a real service.
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import type { TestService } from '../helpers/service.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

export function tfgateAgainst(svc: TestService) {
  return (args: string[], env: Record<string, string> = {}) =>
    execa(
      process.execPath,
      ['--import', join(ROOT, 'test/helpers/ts-register.mjs'), join(ROOT, 'src/cli/main.ts'), ...args],
      {
        cwd: ROOT,
        env: { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey, NO_COLOR: '1', ...env },
        reject: false,
      },
    );
}
