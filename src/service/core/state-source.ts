// Where a package's state lives: a Terraform backend and its non-secret settings. Credentials never come
// through the API: a setting that is a secret is refused, naming the environment variable terraform reads
// instead, and the read runs with the service's own environment.

import { nounFor } from '../../errors/plural.js';
import { SECRET_SETTING_NAME } from '../../schemas/management.js';
import type { BackendValue } from '../../terraform/backend-state.js';
import type { PackageRecord } from '../store/index.js';
import type { StateSourceRecord } from '../store/state-sources.js';
import type { Principal, StateBackendType, StateFallback } from '../types.js';
import { OPERATOR_ACCOUNT } from './admin.js';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';
import { refuseUnstorableText } from './storable-text.js';

/** Per backend, each secret setting and the environment variable terraform reads in its place. */
const SECRET_SETTINGS: Readonly<Record<StateBackendType, Readonly<Record<string, string>>>> = {
  s3: {
    access_key: 'AWS_ACCESS_KEY_ID',
    secret_key: 'AWS_SECRET_ACCESS_KEY',
    token: 'AWS_SESSION_TOKEN',
    sse_customer_key: 'AWS_SSE_CUSTOMER_KEY',
  },
  gcs: {
    credentials: 'GOOGLE_BACKEND_CREDENTIALS (or GOOGLE_CREDENTIALS)',
    access_token: 'GOOGLE_OAUTH_ACCESS_TOKEN',
    encryption_key: 'GOOGLE_ENCRYPTION_KEY',
    kms_encryption_key: 'GOOGLE_KMS_ENCRYPTION_KEY',
  },
  azurerm: {
    access_key: 'ARM_ACCESS_KEY',
    sas_token: 'ARM_SAS_TOKEN',
    client_secret: 'ARM_CLIENT_SECRET',
    client_certificate_password: 'ARM_CLIENT_CERTIFICATE_PASSWORD',
    oidc_token: 'ARM_OIDC_TOKEN',
    oidc_request_token: 'ARM_OIDC_REQUEST_TOKEN',
  },
  pg: { conn_str: 'PG_CONN_STR' },
  http: {
    password: 'TF_HTTP_PASSWORD',
    username: 'TF_HTTP_USERNAME',
    client_private_key_pem: 'TF_HTTP_CLIENT_PRIVATE_KEY_PEM',
  },
  remote: { token: 'TF_TOKEN_<hostname> (e.g. TF_TOKEN_app_terraform_io)' },
  cloud: { token: 'TF_TOKEN_<hostname> (e.g. TF_TOKEN_app_terraform_io)' },
  kubernetes: {
    token: 'KUBE_TOKEN',
    password: 'KUBE_PASSWORD',
    client_key: 'KUBE_CLIENT_KEY_DATA',
  },
  consul: { access_token: 'CONSUL_HTTP_TOKEN', http_auth: 'CONSUL_HTTP_AUTH', key_file: 'CONSUL_CLIENT_KEY' },
  local: {},
};

/** Names that are secrets in any backend (the table above names the variable where one exists). */
const SECRET_NAME = SECRET_SETTING_NAME;

/** `scheme://user:password@host`: a password inside a URL-shaped setting. */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i;

export interface StateSourceInput {
  type: StateBackendType;
  config: Record<string, BackendValue>;
  fallback: StateFallback;
}

export interface StateSourceView {
  package_id: string;
  type: StateBackendType;
  config: Record<string, BackendValue>;
  fallback: StateFallback;
  updated_at: string;
  updated_by: string;
}

export function stateSourceView(pkg: PackageRecord, record: StateSourceRecord): StateSourceView {
  return {
    package_id: pkg.packageId,
    type: record.type,
    config: record.config,
    fallback: record.fallback,
    updated_at: record.updatedAt,
    updated_by: record.updatedBy,
  };
}

function secretRefused(type: StateBackendType, path: string, variable: string | undefined): ServiceError {
  const instead = variable
    ? `set ${variable} in the environment of tfgate serve instead`
    : `give it to terraform through the environment of tfgate serve (the variable the ${type} backend documents) instead`;
  return new ServiceError(
    400,
    'secret_in_state_source',
    `"config.${path}" is a secret, and secrets are never stored or sent through the API: ${instead}; terraform reads it from there when the service reads the state`,
    { details: { setting: path, environment_variable: variable ?? null } },
  );
}

/** Refuses secrets anywhere in the settings: by name (nested blocks too) and passwords inside URLs. */
function refuseSecrets(type: StateBackendType, config: Record<string, BackendValue>): void {
  const table = SECRET_SETTINGS[type];
  const visit = (value: BackendValue, path: string): void => {
    if (typeof value === 'string') {
      if (URL_PASSWORD.test(value)) {
        throw new ServiceError(
          400,
          'secret_in_state_source',
          `"config.${path}" holds a password inside a URL; remove it from the URL and give the credentials to terraform through the environment of tfgate serve (for http: TF_HTTP_USERNAME and TF_HTTP_PASSWORD)`,
          { details: { setting: path } },
        );
      }
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        visit(item, `${path}[${i}]`);
      });
      return;
    }
    if (typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) checkKey(key, child, `${path}.${key}`);
    }
  };
  const checkKey = (key: string, value: BackendValue, path: string): void => {
    const variable = table[key];
    if (variable !== undefined || SECRET_NAME.test(key)) throw secretRefused(type, path, variable);
    visit(value, path);
  };
  for (const [key, value] of Object.entries(config)) checkKey(key, value, key);
}

/** The operator's list (--state-backends): a type not on it is refused when set and when read. */
export function backendAllowed(ctx: ServiceContext, type: StateBackendType): boolean {
  return ctx.config.stateBackends.includes(type);
}

export function backendNotAllowed(ctx: ServiceContext, type: StateBackendType, status = 400): ServiceError {
  const why =
    type === 'local'
      ? 'the local backend reads files on the service host, so it is off unless the operator allows it'
      : 'the operator did not allow it';
  return new ServiceError(
    status,
    'state_backend_not_allowed',
    `state backend "${type}" is not allowed on this service (${why}); allowed: ${ctx.config.stateBackends.join(', ') || 'none'}. The operator sets them with --state-backends (TFGATE_STATE_BACKENDS)`,
    { details: { type, allowed: [...ctx.config.stateBackends] } },
  );
}

function checkLocal(config: Record<string, BackendValue>): void {
  for (const key of ['path', 'workspace_dir']) {
    const value = config[key];
    if (value !== undefined && (typeof value !== 'string' || !value.startsWith('/'))) {
      throw new ServiceError(
        400,
        'invalid_parameter',
        `"config.${key}" of the local backend must be an absolute path: the service reads it from a scratch directory`,
        { details: { path: ['config', key] } },
      );
    }
  }
  if (config.path === undefined) {
    throw new ServiceError(400, 'invalid_parameter', '"config.path" is required for the local backend', {
      details: { path: ['config', 'path'] },
    });
  }
}

/**
 * Settings terraform's documentation marks required that no environment variable of the service can supply:
 * without one every drift check fails (502) until the source is fixed, so the source is refused now instead.
 * Backends whose settings may come from the environment (pg, http, remote, cloud) are left to terraform.
 */
const REQUIRED_SETTINGS: Partial<Record<StateBackendType, readonly string[]>> = {
  s3: ['bucket', 'key'],
  gcs: ['bucket'],
  azurerm: ['storage_account_name', 'container_name', 'key'],
  kubernetes: ['secret_suffix'],
  consul: ['path'],
};

function checkRequired(type: StateBackendType, config: Record<string, BackendValue>): void {
  const missing = (REQUIRED_SETTINGS[type] ?? []).filter((key) => {
    const value = config[key];
    return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
  });
  if (missing.length === 0) return;
  throw new ServiceError(
    400,
    'invalid_parameter',
    `the ${type} backend needs ${missing.map((key) => `"config.${key}"`).join(' and ')}: terraform cannot read a state without ${nounFor(missing.length, 'it', 'them')}, so every drift check would fail`,
    { details: { path: ['config', missing[0]!], missing: missing.map((key) => `config.${key}`) } },
  );
}

export async function putStateSource(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  input: StateSourceInput,
): Promise<StateSourceView> {
  // The service reads the state with its own credentials (its environment): where they are presented is the
  // operator's decision, never a key holder's (an http address of theirs would receive TF_HTTP_PASSWORD).
  if (principal.account !== OPERATOR_ACCOUNT || !principal.scopes.includes('admin')) {
    throw new ServiceError(
      403,
      'operator_only',
      `a state source is read with the service's own credentials, so only an admin key of the operator account "${OPERATOR_ACCOUNT}" sets one; push the state instead (tfgate state push)`,
    );
  }
  if (!backendAllowed(ctx, input.type)) throw backendNotAllowed(ctx, input.type);
  refuseSecrets(input.type, input.config);
  if (input.type === 'local') checkLocal(input.config);
  checkRequired(input.type, input.config);
  refuseUnstorableText(input.config, 'invalid_parameter', 'config');
  const record = await ctx.store.stateSources.put(principal, pkg, input);
  return stateSourceView(pkg, record);
}

export async function getStateSource(ctx: ServiceContext, pkg: PackageRecord): Promise<StateSourceView> {
  const record = await ctx.store.stateSources.get(pkg);
  if (!record) {
    throw new ServiceError(
      404,
      'state_source_not_set',
      `package "${pkg.packageId}" has no state source: its drift checks judge the state pushed with \`tfgate state push\`. Set one with PUT /v1/analysis/conformance/packages/${pkg.packageId}/state-source`,
    );
  }
  return stateSourceView(pkg, record);
}

export function clearStateSource(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
): Promise<boolean> {
  return ctx.store.stateSources.delete(principal, pkg);
}
