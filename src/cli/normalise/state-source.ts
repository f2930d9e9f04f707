// `tfgate state-source set`: --config key=value (repeatable) and --config-json (nested blocks) → the settings.
import { UsageError } from '../../errors/index.js';
import { parseUntrustedJson } from '../../json/untrusted.js';
import { SECRET_SETTING_NAME } from '../../schemas/management.js';
import type { ManagementFlags } from './management.js';

export interface StateSourceSetFlags extends ManagementFlags {
  type?: string;
  config?: string[];
  configJson?: string;
  fallback?: string;
}

function refuseSecret(name: string, flag: string): void {
  // Refused here, before anything is sent (the service refuses them too).
  if (!SECRET_SETTING_NAME.test(name)) return;
  throw new UsageError(
    'secret_in_state_source',
    `${flag}: "${name}" is a secret, and secrets are never sent to the service`,
    {
      hint: 'set the variable terraform reads for it (PG_CONN_STR, AWS_SECRET_ACCESS_KEY, TF_HTTP_PASSWORD, ...) in the environment of tfgate serve instead, and leave the setting out',
    },
  );
}

/**
 * The settings object: `--config-json` first, then each `--config key=value` over it. Values from --config
 * are strings; terraform converts them to the backend's booleans and numbers.
 */
export function stateSourceSettings(flags: StateSourceSetFlags): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  if (flags.configJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = parseUntrustedJson(flags.configJson, 1024 * 1024);
    } catch (error) {
      throw new UsageError('invalid_option', `--config-json is not JSON: ${(error as Error).message}`, {
        hint: `give an object, e.g. --config-json '{"assume_role": {"role_arn": "arn:aws:iam::1:role/r"}}'`,
      });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new UsageError('invalid_option', '--config-json must be a JSON object of settings');
    }
    const visit = (value: unknown): void => {
      if (typeof value !== 'object' || value === null) return;
      for (const [key, child] of Object.entries(value)) {
        if (!Array.isArray(value)) refuseSecret(key, '--config-json');
        visit(child);
      }
    };
    visit(parsed);
    Object.assign(settings, parsed);
  }
  for (const pair of flags.config ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      throw new UsageError('invalid_option', `--config "${pair}" is not key=value`, {
        hint: 'e.g. --config schema_name=payments (repeat --config for each setting)',
      });
    }
    const key = pair.slice(0, at);
    refuseSecret(key, '--config');
    settings[key] = pair.slice(at + 1);
  }
  return settings;
}
