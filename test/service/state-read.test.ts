// The backend block the service writes (JSON, never HCL; template syntax escaped for OpenTofu only) and the
// credential hygiene around reading a state: tfgate's own variables withheld, secrets removed from messages.
import { describe, expect, it } from 'vitest';
import { credentialRedactor, terraformEnvironment } from '../../src/service/core/judged-state.js';
import { renderBackendConfig } from '../../src/terraform/backend-state.js';

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
  };

  it("withholds tfgate's own settings (its database, its bootstrap key) from terraform", () => {
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
