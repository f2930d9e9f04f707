// The state a drift check judges: read now from the package's backend through terraform, or the snapshot last
// pushed. A failed read is an error (drift_check_failed, or drift_check_timeout), never a pass on the old
// snapshot, unless the package chose `fallback: pushed`; then the result names the failure and the snapshot.
import { createReadStream } from 'node:fs';
import { errorMessage, isTfgateError } from '../../errors/index.js';
import type { JudgedState, ObservedResource } from '../../model/index.js';
import { readPulledState } from '../../plan/read-raw-state.js';
import { BackendReadError, noStateError, readBackendState } from '../../terraform/backend-state.js';
import { detectTerraform, type TerraformBinary } from '../../terraform/binary.js';
import type { PackageRecord, StateSourceRecord } from '../store/index.js';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';
import { backendAllowed, backendNotAllowed } from './state-source.js';

export interface Judged {
  resources: ObservedResource[];
  state: JudgedState;
}

/**
 * Withheld from terraform: tfgate's own variables (its database, its bootstrap key), which terraform never
 * needs, and TF_LOG*, whose debug output (request dumps, headers) would reach the error text we repeat.
 */
const OWN_VARIABLES = /^(TFGATE_|DATABASE_URL$|TF_LOG)/;
/** Names of variables whose values are credentials: removed from any terraform text we repeat. */
const SECRET_VARIABLE =
  /(PASSWORD|PASSWD|SECRET|TOKEN|CONN_STR|CREDENTIALS|ACCESS_KEY|PRIVATE_KEY|SAS|_AUTH$|_KEY$|_KEY_DATA$)/i;

/** The environment terraform runs with: the service's own, without tfgate's settings or TF_LOG. */
export function terraformEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !OWN_VARIABLES.test(name)));
}

/**
 * Removes credentials from terraform's error text before it reaches a response, a log or the audit log:
 * every secret variable's value (and the password of a URL-shaped one), URL user info, `password=...`.
 */
export function credentialRedactor(env: NodeJS.ProcessEnv): (text: string) => string {
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value || !SECRET_VARIABLE.test(name)) continue;
    if (value.length >= 4) secrets.add(value);
    const password = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:([^/@\s]+)@/i.exec(value)?.[1];
    if (password && password.length >= 3) secrets.add(password);
    const keyword = /password\s*=\s*'?([^'\s]+)/i.exec(value)?.[1];
    if (keyword && keyword.length >= 3) secrets.add(keyword);
  }
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of ordered) out = out.split(secret).join('[redacted]');
    return out
      .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1[redacted]@')
      .replace(/(password\s*=\s*)('[^']*'|\S+)/gi, '$1[redacted]');
  };
}

const detected = new Map<string, Promise<TerraformBinary>>();

/** The binary is identified once per service (Terraform or OpenTofu decides how settings are written). */
function binaryFor(ctx: ServiceContext, env: NodeJS.ProcessEnv): Promise<TerraformBinary> {
  const command = ctx.config.terraformBin;
  let binary = detected.get(command);
  if (!binary) {
    binary = detectTerraform(command, env);
    binary.catch(() => detected.delete(command));
    detected.set(command, binary);
  }
  return binary;
}

/** Reads the source's state now; every failure is a BackendReadError or a ServiceError. */
async function readFromBackend(
  ctx: ServiceContext,
  pkg: PackageRecord,
  source: StateSourceRecord,
): Promise<Judged> {
  if (!backendAllowed(ctx, source.type)) throw backendNotAllowed(ctx, source.type, 502);
  const env = terraformEnvironment(ctx.environment);
  const redact = credentialRedactor(ctx.environment);
  let binary: TerraformBinary;
  try {
    binary = await binaryFor(ctx, env);
  } catch (error) {
    throw new BackendReadError('init', redact(errorMessage(error)), {
      cause: error,
    });
  }
  const readAt = new Date().toISOString();
  return readBackendState(
    {
      binary,
      backend: { type: source.type, config: source.config },
      env,
      timeoutMs: ctx.config.stateReadTimeout,
      maxBytes: ctx.config.maxBody,
      redact,
    },
    async ({ rawFile }) => {
      const description = `the ${source.type} state of package "${pkg.packageId}"`;
      const pulled = await readPulledState(createReadStream(rawFile), { description });
      if (pulled === undefined) throw noStateError(source.type);
      const { identity, state } = pulled;
      return {
        resources: state.resources,
        state: { source: source.type, serial: identity.serial, lineage: identity.lineage, read_at: readAt },
      };
    },
  );
}

interface Flight {
  running: Promise<Judged>;
  /** The read after it, which callers arriving meanwhile share. */
  next: Promise<Judged> | undefined;
}

const flights = new WeakMap<ServiceContext, Map<string, Flight>>();

/**
 * Reads of one package's backend share terraform: a caller joins the read that starts after the running one
 * ends (the running one may have started before the caller's apply finished, so it is not "now" for it).
 * At most two reads per package run or wait, however many refresh gates arrive at once.
 */
function sharedRead(ctx: ServiceContext, pkg: PackageRecord, source: StateSourceRecord): Promise<Judged> {
  let byKey = flights.get(ctx);
  if (!byKey) {
    byKey = new Map();
    flights.set(ctx, byKey);
  }
  const table = byKey;
  const key = `${pkg.pk}\u0000${source.type}\u0000${JSON.stringify(source.config)}`;
  const start = (): Promise<Judged> => {
    const flight: Flight = { running: readFromBackend(ctx, pkg, source), next: undefined };
    table.set(key, flight);
    const done = () => {
      if (table.get(key) === flight && flight.next === undefined) table.delete(key);
    };
    flight.running.then(done, done);
    return flight.running;
  };
  const current = table.get(key);
  if (!current) return start();
  const ignore = () => undefined;
  current.next ??= current.running.then(ignore, ignore).then(start);
  return current.next;
}

async function pushed(ctx: ServiceContext, pkg: PackageRecord): Promise<Judged | null> {
  const state = await ctx.store.observedState.get(pkg);
  if (!state) return null;
  return {
    resources: state.resources,
    state: { source: 'pushed', serial: null, lineage: null, read_at: state.pushedAt },
  };
}

function observedStateMissing(pkg: PackageRecord): ServiceError {
  return new ServiceError(
    409,
    'observed_state_missing',
    `package "${pkg.packageId}" has no observed state, so drift cannot be checked; push it with \`tfgate state push --package ${pkg.packageId}\` (PUT /v1/analysis/conformance/packages/${pkg.packageId}/observed-state), or name its state backend (PUT /v1/analysis/conformance/packages/${pkg.packageId}/state-source)`,
  );
}

/** A failed read, as the gate answers it: never a decision. */
export function readFailed(pkg: PackageRecord, source: StateSourceRecord, error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const message = errorMessage(error);
  const details = {
    state_source: source.type,
    ...(isTfgateError(error) ? error.details : {}),
  };
  if (error instanceof BackendReadError && error.timedOut) {
    return new ServiceError(
      504,
      'drift_check_timeout',
      `the drift check of package "${pkg.packageId}" did not finish: ${message}; no decision was made. Retry, or ask the operator to raise --state-read-timeout`,
      { details, cause: error },
    );
  }
  return new ServiceError(
    502,
    'drift_check_failed',
    `the drift check of package "${pkg.packageId}" could not read its state from the ${source.type} backend, so no decision was made: ${message}`,
    { details, cause: error },
  );
}

/** The state to judge: the backend's, now, when the package names one; else the pushed snapshot. */
export async function judgedState(ctx: ServiceContext, pkg: PackageRecord): Promise<Judged> {
  const source = await ctx.store.stateSources.get(pkg);
  if (!source) {
    const snapshot = await pushed(ctx, pkg);
    if (!snapshot) throw observedStateMissing(pkg);
    return snapshot;
  }
  try {
    return await sharedRead(ctx, pkg, source);
  } catch (error) {
    const failure = readFailed(pkg, source, error);
    // Only a read failure may fall back; a failure of ours (a bug, the database) is never hidden.
    if (source.fallback !== 'pushed' || !(isTfgateError(error) || error instanceof ServiceError))
      throw failure;
    const snapshot = await pushed(ctx, pkg);
    if (!snapshot) throw failure;
    ctx.log.warn('state read failed; judging the pushed snapshot (fallback: pushed)', {
      package_id: pkg.packageId,
      account: pkg.account,
      state_source: source.type,
      error: failure.message,
    });
    return {
      resources: snapshot.resources,
      state: { ...snapshot.state, fallback_from: source.type, read_error: failure.message },
    };
  }
}
