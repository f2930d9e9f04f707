// The backend block the service writes (JSON, never HCL; template syntax escaped for OpenTofu only) and the
// credential hygiene around reading a state: tfgate's own variables withheld, secrets removed from messages.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readObservedState, readStateIdentity } from '../../src/plan/index.js';
import { credentialRedactor, terraformEnvironment } from '../../src/service/core/judged-state.js';
import { readBackendState, renderBackendConfig } from '../../src/terraform/backend-state.js';
import { detectTerraform } from '../../src/terraform/binary.js';

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
  it('keeps show -json output a consumer reads late (Node discards unread stdout of an exited child)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-late-'));
    try {
      const path = join(dir, 'late.tfstate');
      writeFileSync(
        path,
        JSON.stringify({
          version: 4,
          terraform_version: '1.11.4',
          serial: 3,
          lineage: '6f1c0d3e-0000-4000-8000-000000000001',
          outputs: {},
          resources: [],
          check_results: null,
        }),
      );
      const binary = await detectTerraform('terraform');
      const cliConfig = join(dir, 'empty.tfrc');
      writeFileSync(cliConfig, '');
      const result = await readBackendState(
        {
          binary,
          backend: { type: 'local', config: { path } },
          env: { ...process.env, TF_CLI_CONFIG_FILE: cliConfig },
          timeoutMs: 60_000,
          maxBytes: 1024 * 1024,
          redact: (text) => text,
        },
        async ({ rawFile, showJson }) => {
          const identity = await readStateIdentity(createReadStream(rawFile));
          // By now `show` has long exited: its output must still be there.
          await new Promise((resolve) => setTimeout(resolve, 1500));
          const state = await readObservedState(showJson);
          return { identity, state };
        },
      );
      expect(result.identity).toEqual({ serial: 3, lineage: '6f1c0d3e-0000-4000-8000-000000000001' });
      expect(result.state).toMatchObject({ format_version: '1.0', resources: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
