// The CLI's normalisers: flags and environment become one parsed options object, and every problem is a
// usage error (exit 1) in plain words that names the flag, never the schema library's wording.
import { describe, expect, it } from 'vitest';
import { normaliseBundleBuildOptions, normaliseBundlePullOptions } from '../../src/cli/normalise/bundle.js';
import { normaliseCheckInput, normaliseCheckOptions } from '../../src/cli/normalise/check.js';
import { normaliseGateOptions } from '../../src/cli/normalise/gate.js';
import { normaliseKeysCreateOptions } from '../../src/cli/normalise/keys.js';
import { normaliseManagement } from '../../src/cli/normalise/management.js';
import { normaliseServeOptions } from '../../src/cli/normalise/serve.js';
import { normaliseStatePushOptions } from '../../src/cli/normalise/state.js';
import { normaliseApplyOptions, normalisePlanOptions } from '../../src/cli/normalise/wrapper.js';
import { designPackageOptionsSchema } from '../../src/commands/design.js';
import { ExitCode, type TfgateError, UsageError } from '../../src/errors/index.js';

/** zod's own wording, which must never reach a user. */
const ZOD_WORDING = /Invalid input|Invalid option|expected string|Too small|Too big|received undefined/;

function usageError(run: () => unknown): TfgateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const usage = error as TfgateError;
    expect(usage.exitCode).toBe(ExitCode.usage);
    expect(usage.message).not.toMatch(ZOD_WORDING);
    return usage;
  }
  throw new Error('expected a usage error');
}

describe('the normalisers', () => {
  it('keys create: scopes split on commas and spaces; an unknown scope names --scopes and the choices', () => {
    expect(
      normaliseKeysCreateOptions({ account: 'a', name: 'ci', scopes: ['compliance:read,admin', ' '] }).scopes,
    ).toEqual(['compliance:read', 'admin']);
    const error = usageError(() =>
      normaliseKeysCreateOptions({ account: 'a', name: 'ci', scopes: ['root'] }),
    );
    expect(error.message).toContain('--scopes');
    expect(error.message).toContain('compliance:read, compliance:write, admin');
  });

  it('state push: a bad package id names --package; TFGATE_TERRAFORM_BIN fills --terraform-bin', () => {
    expect(usageError(() => normaliseStatePushOptions({ package: 'Bad Id' }, {})).message).toMatch(
      /^--package: /,
    );
    expect(
      normaliseStatePushOptions({ package: 'p' }, { TFGATE_TERRAFORM_BIN: 'tofu' }).options.terraformBin,
    ).toBe('tofu');
  });

  it('state push: --package falls back to TFGATE_PACKAGE (the flag wins); --format is text or json', () => {
    expect(normaliseStatePushOptions({}, { TFGATE_PACKAGE: 'payments' }).options.package).toBe('payments');
    expect(
      normaliseStatePushOptions({ package: 'ledger' }, { TFGATE_PACKAGE: 'payments' }).options.package,
    ).toBe('ledger');
    expect(normaliseStatePushOptions({ package: 'p' }, {}).format).toBe('text');
    expect(normaliseStatePushOptions({ package: 'p', format: 'json' }, {}).format).toBe('json');
    expect(usageError(() => normaliseStatePushOptions({ package: 'p', format: 'yaml' }, {})).message).toMatch(
      /^--format: /,
    );
  });

  it('bundle build: a missing signing key is "--signing-key: is required", not the library wording', () => {
    const error = usageError(() => normaliseBundleBuildOptions({ design: 'd.yaml', output: 'b.tar.gz' }, {}));
    expect(error.message).toBe('--signing-key: is required');
    // The CLI's top-level catch reads which flags are missing from here to name them in the command's words.
    expect(error.details).toEqual({ missing: ['--signing-key'] });
  });

  it('a setting from the environment is named as its variable in errors; from a flag, as its flag', () => {
    const check = { planJson: 'plan.json', bundle: 'b.tar.gz', publicKey: 'k.pem' };
    expect(usageError(() => normaliseCheckOptions(check, { TFGATE_MIN_SEVERITY: 'severe' })).message).toBe(
      'TFGATE_MIN_SEVERITY: must be one of: low, medium, high, critical',
    );
    expect(
      usageError(() =>
        normaliseCheckOptions({ ...check, minSeverity: 'severe' }, { TFGATE_MIN_SEVERITY: 'high' }),
      ).message,
    ).toBe('--min-severity: must be one of: low, medium, high, critical');
    expect(
      usageError(() =>
        normaliseCheckInput(
          { planJson: ['a.json', 'b.json'], bundle: 'b.tar.gz', publicKey: 'k.pem' },
          { TFGATE_MIN_SEVERITY: 'severe' },
        ),
      ).message,
    ).toMatch(/^TFGATE_MIN_SEVERITY: /);
    const wrapper = { bundle: 'b.tar.gz', publicKey: 'k.pem' };
    expect(
      usageError(() => normalisePlanOptions(wrapper, [], { TFGATE_MIN_SEVERITY: 'severe' })).message,
    ).toMatch(/^TFGATE_MIN_SEVERITY: /);
    expect(usageError(() => normaliseGateOptions({}, { TFGATE_PACKAGE: 'Bad Id' })).message).toMatch(
      /^TFGATE_PACKAGE: a package id is/,
    );
    expect(usageError(() => normaliseGateOptions({ package: 'Bad Id' }, {})).message).toMatch(/^--package: /);
    expect(usageError(() => normaliseStatePushOptions({}, { TFGATE_PACKAGE: 'Bad Id' })).message).toMatch(
      /^TFGATE_PACKAGE: /,
    );
    expect(usageError(() => normaliseBundlePullOptions({}, { TFGATE_PACKAGE: 'Bad Id' })).message).toMatch(
      /^TFGATE_PACKAGE: /,
    );
    expect(
      usageError(() => normaliseManagement(designPackageOptionsSchema, {}, { TFGATE_PACKAGE: 'Bad Id' }))
        .message,
    ).toMatch(/^TFGATE_PACKAGE: /);
  });

  it('advisory mode remembers how it was asked for: TFGATE_ADVISORY=<value>, or (absent) the flag', () => {
    const check = { planJson: 'plan.json', bundle: 'b.tar.gz', publicKey: 'k.pem' };
    expect(normaliseCheckOptions(check, { TFGATE_ADVISORY: 'yes' })).toMatchObject({
      advisory: true,
      advisoryGivenAs: 'TFGATE_ADVISORY=yes',
    });
    const flag = normaliseCheckOptions({ ...check, advisory: true }, { TFGATE_ADVISORY: '1' });
    expect(flag.advisory).toBe(true);
    expect(flag.advisoryGivenAs).toBeUndefined();
    expect(normaliseCheckOptions(check, { TFGATE_ADVISORY: '0' }).advisoryGivenAs).toBeUndefined();
    expect(
      normaliseApplyOptions({ bundle: 'b.tar.gz', publicKey: 'k.pem' }, [], { TFGATE_ADVISORY: '1' }),
    ).toMatchObject({ advisory: true, advisoryGivenAs: 'TFGATE_ADVISORY=1' });
    expect(normaliseGateOptions({ package: 'p' }, { TFGATE_ADVISORY: 'TRUE' })).toMatchObject({
      advisory: true,
      advisoryGivenAs: 'TFGATE_ADVISORY=TRUE',
    });
  });

  it('check: the route and the plan input come from flags and environment, once', () => {
    const options = normaliseCheckOptions(
      { planJson: 'plan.json', bundle: 'b.tar.gz' },
      { TFGATE_PUBLIC_KEY: 'key.pem', TFGATE_MIN_SEVERITY: 'high', TFGATE_ADVISORY: 'yes' },
    );
    expect(options).toMatchObject({
      plan: { kind: 'plan-json', path: 'plan.json' },
      route: { kind: 'bundle', bundle: 'b.tar.gz', publicKey: 'key.pem', allowUnsigned: false },
      minSeverity: 'high',
      advisory: true,
      reports: [{ format: 'text' }],
    });
    expect(
      usageError(() => normaliseCheckOptions({ planJson: 'p', package: 'p', minSeverity: 'severe' }, {}))
        .message,
    ).toContain('--min-severity');
  });

  it('plan and apply: the terraform arguments and --out / --plan-file', () => {
    expect(normalisePlanOptions({ package: 'p', out: 'x.tfplan' }, ['-var=a=b'], {})).toMatchObject({
      route: { kind: 'remote', packageId: 'p' },
      terraformArgs: ['-var=a=b'],
      out: 'x.tfplan',
    });
    expect(normaliseApplyOptions({ package: 'p', planFile: 'x.tfplan' }, [], {}).planFile).toBe('x.tfplan');
    expect(usageError(() => normaliseApplyOptions({}, [], {})).code).toBe('route_required');
  });

  it('serve: a bad setting names the flag and its variable', () => {
    const error = usageError(() => normaliseServeOptions({ port: 'eighty' }, {}));
    expect(error.message).toMatch(/^--port \(env TFGATE_PORT\): /);
    expect(normaliseServeOptions({}, { TFGATE_PORT: '8181' }).port).toBe(8181);
  });
});
