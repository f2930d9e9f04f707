// The backend block the service writes (JSON, never HCL; template syntax escaped for OpenTofu only), the
// credential hygiene around reading a state (tfgate's own variables withheld, secrets removed from messages),
// and the read itself with the real terraform and tofu: no provider installed, no `show -json`.
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRawState } from '../../src/plan/read-raw-state.js';
import { credentialRedactor, terraformEnvironment } from '../../src/service/core/judged-state.js';
import {
  BackendReadError,
  readBackendState,
  renderBackendConfig,
} from '../../src/terraform/backend-state.js';
import { detectTerraform } from '../../src/terraform/binary.js';
import { TOFU_BIN } from '../helpers/terraform.js';

// biome-ignore lint/suspicious/noTemplateCurlyInString: terraform template syntax, meant literally.
const HOSTILE = 'x"\n}\nresource "terraform_data" "y" {}\n${file("/etc/passwd")}%{if true}';

describe('renderBackendConfig', () => {
  it('writes the settings as JSON: a hostile value stays one string value', () => {
    const text = renderBackendConfig(
      { type: 'pg', config: { schema_name: HOSTILE, skip: true } },
      'terraform',
    );
    expect(JSON.parse(text)).toEqual({
      terraform: { backend: { pg: { schema_name: HOSTILE, skip: true } } },
    });
  });

  it('escapes ${ and %{ for OpenTofu, which evaluates backend settings as templates, in nested values too', () => {
    const text = renderBackendConfig(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: terraform template syntax, meant literally.
      { type: 's3', config: { key: 'a${b}%{c}', assume_role: { role_arn: '${x}' }, list: ['%{y}'] } },
      'opentofu',
    );
    expect(JSON.parse(text)).toEqual({
      terraform: {
        backend: { s3: { key: 'a$${b}%%{c}', assume_role: { role_arn: '$${x}' }, list: ['%%{y}'] } },
      },
    });
  });

  it('writes the cloud block as a cloud block, not a backend', () => {
    const text = renderBackendConfig({ type: 'cloud', config: { organization: 'o' } }, 'terraform');
    expect(JSON.parse(text)).toEqual({ terraform: { cloud: { organization: 'o' } } });
  });
});

describe('credentials around a read', () => {
  const env = {
    PATH: '/usr/bin',
    PG_CONN_STR: 'postgres://reader:pw-one-234@db:5432/states',
    AWS_SECRET_ACCESS_KEY: 'aws-secret-5678',
    TF_HTTP_PASSWORD: 'http-pw-9',
    KUBE_CLIENT_KEY_DATA: 'kube-key-data',
    TFGATE_BOOTSTRAP_API_KEY: 'tfgate-bootstrap-key-0123456789',
    DATABASE_URL: 'postgres://tfgate:db-pw@db/tfgate',
    TF_LOG: 'trace',
    TF_LOG_PATH: '/tmp/tf.log',
  };

  it("withholds tfgate's own settings (its database, its bootstrap key) and TF_LOG from terraform", () => {
    expect(terraformEnvironment(env)).toEqual({
      PATH: '/usr/bin',
      PG_CONN_STR: env.PG_CONN_STR,
      AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
      TF_HTTP_PASSWORD: env.TF_HTTP_PASSWORD,
      KUBE_CLIENT_KEY_DATA: env.KUBE_CLIENT_KEY_DATA,
    });
  });

  it('removes secret values, URL passwords and password= from what terraform printed', () => {
    const redact = credentialRedactor(env);
    const text = redact(
      'parse "postgres://reader:pw-one-234@db:5432/states": bad; key aws-secret-5678; pw-one-234; http-pw-9; ' +
        'host=db password=other-pw-1 user=x; kube-key-data; https://u:p@h/x',
    );
    for (const secret of [
      'pw-one-234',
      'aws-secret-5678',
      'http-pw-9',
      'other-pw-1',
      'kube-key-data',
      'u:p@',
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain('bad');
    expect(text).toContain('host=db');
  });
});

describe('readBackendState', () => {
  // The state names providers none of which is installed (and no registry is reachable here): before, init
  // tried to install them and `show -json` needed their schemas, so the read failed. Now neither is needed.
  it.each([
    ['terraform', 'terraform'],
    ['tofu', TOFU_BIN],
  ])(
    '%s pulls a state naming aws into a private file, with no provider installed',
    async (_name, command) => {
      const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
      try {
        const path = join(dir, 'aws.tfstate');
        writeFileSync(
          path,
          JSON.stringify({
            version: 4,
            terraform_version: '1.11.4',
            serial: 3,
            lineage: '6f1c0d3e-0000-4000-8000-000000000001',
            outputs: {},
            resources: [
              {
                module: 'module.db[0]',
                mode: 'managed',
                type: 'aws_db_instance',
                name: 'ledger',
                provider: 'provider["registry.terraform.io/hashicorp/aws"]',
                instances: [{ schema_version: 2, attributes: { id: 'db-1', password: 'hunter2' } }],
              },
            ],
            check_results: null,
          }),
        );
        const binary = await detectTerraform(command);
        const cliConfig = join(dir, 'empty.tfrc');
        writeFileSync(cliConfig, '');
        let scratch = '';
        const read = await readBackendState(
          {
            binary,
            backend: { type: 'local', config: { path } },
            env: { ...process.env, TF_CLI_CONFIG_FILE: cliConfig },
            timeoutMs: 60_000,
            maxBytes: 1024 * 1024,
            redact: (text) => text,
            parentDir: dir,
          },
          async ({ rawFile }) => {
            scratch = dirname(rawFile);
            expect(statSync(rawFile).mode & 0o777).toBe(0o600);
            expect(statSync(scratch).mode & 0o777).toBe(0o700);
            return readRawState(createReadStream(rawFile));
          },
        );
        expect(read).toEqual({
          identity: { serial: 3, lineage: '6f1c0d3e-0000-4000-8000-000000000001' },
          state: {
            terraform_version: expect.any(String),
            resources: [
              {
                address: 'module.db[0].aws_db_instance.ledger',
                mode: 'managed',
                type: 'aws_db_instance',
                name: 'ledger',
                module_address: 'module.db[0]',
              },
            ],
          },
        });
        // The scratch directory (state values are secrets) is gone, and no provider was installed in it.
        expect(existsSync(scratch)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it('an init that fails before its providers step (a backend setting terraform refuses) is the failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
    try {
      const binary = await detectTerraform('terraform');
      const error = await readBackendState(
        {
          binary,
          backend: { type: 'local', config: { path: join(dir, 'x.tfstate'), no_such_setting: 'x' } },
          env: { ...process.env, TF_CLI_CONFIG_FILE: '/dev/null' },
          timeoutMs: 60_000,
          maxBytes: 1024 * 1024,
          redact: (text) => text,
        },
        async () => 'consumed',
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BackendReadError);
      expect(error).toMatchObject({ step: 'init', timedOut: false });
      expect((error as Error).message).toMatch(
        /^terraform init failed reading the local state: Extraneous JSON object property/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
