// The run task settings: allowed origins (a comma-separated list of origins, default HCP Terraform's), the
// lease, and the public URL; wrong values are refused in plain words naming the flag and its variable.
import { describe, expect, it } from 'vitest';
import { resolveServeConfig } from '../../../src/service/config.js';

describe('run task settings', () => {
  it('default to HCP Terraform, a 60 s lease and no public URL', () => {
    const config = resolveServeConfig({}, {});
    expect(config.runTaskAllowedOrigins).toEqual(['https://app.terraform.io']);
    expect(config.runTaskLease).toBe(60_000);
    expect(config.publicUrl).toBeUndefined();
  });

  it('take a list of origins from the environment, the flag winning', () => {
    const env = { TFGATE_RUN_TASK_ALLOWED_ORIGINS: 'https://tfe.example.com, https://app.terraform.io/' };
    expect(resolveServeConfig({}, env).runTaskAllowedOrigins).toEqual([
      'https://tfe.example.com',
      'https://app.terraform.io',
    ]);
    expect(
      resolveServeConfig({ runTaskAllowedOrigins: 'https://tfe.internal:8443' }, env).runTaskAllowedOrigins,
    ).toEqual(['https://tfe.internal:8443']);
  });

  it('refuse something that is not an origin, in plain words', () => {
    for (const bad of ['app.terraform.io', 'https://app.terraform.io/api', 'ftp://tfe.example.com']) {
      expect(() => resolveServeConfig({}, { TFGATE_RUN_TASK_ALLOWED_ORIGINS: bad })).toThrow(
        /--run-task-allowed-origins \(env TFGATE_RUN_TASK_ALLOWED_ORIGINS\).*is not an origin/,
      );
    }
    expect(() => resolveServeConfig({}, { TFGATE_PUBLIC_URL: 'tfgate.example.com' })).toThrow(
      /--public-url \(env TFGATE_PUBLIC_URL\): is not an http\(s\) URL/,
    );
  });
});
