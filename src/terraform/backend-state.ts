// Read a package's state from its backend, now: a scratch working directory holding only the backend block,
// `init`, then `state pull` into a private file the caller reads (serial, lineage and resources, from one
// snapshot). No `show -json`: it needs every provider's schema, so it failed on any state naming a provider
// (aws, google, ...) unless the service downloaded them all; the raw state names its resources itself.
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { TerraformError } from '../errors/index.js';
import type { TerraformBinary } from './binary.js';
import { firstErrorSummary, stripAnsi } from './failures.js';
import { spawnProcess } from './process.js';

/** A backend setting as JSON holds it: scalars, lists and nested blocks (s3's `assume_role { ... }`). */
export type BackendValue = string | number | boolean | BackendValue[] | { [key: string]: BackendValue };

export interface BackendBlock {
  /** A backend type (`pg`, `s3`, `http`, ...) or `cloud` (HCP Terraform's `cloud` block). */
  type: string;
  config: Record<string, BackendValue>;
}

export type BackendReadStep = 'init' | 'pull';

/** Why a read failed: what the caller turns into `drift_check_failed` (or a timeout), never into a pass. */
export class BackendReadError extends TerraformError {
  readonly step: BackendReadStep;
  readonly timedOut: boolean;
  constructor(
    step: BackendReadStep,
    message: string,
    options: { timedOut?: boolean; terraformError?: string | undefined; cause?: unknown } = {},
  ) {
    super(options.timedOut ? 'state_read_timeout' : 'state_read_failed', message, {
      details: { step, terraform_error: options.terraformError },
      cause: options.cause,
    });
    this.step = step;
    this.timedOut = options.timedOut ?? false;
  }
}

/** terraform's error text can quote settings; `redact` removes what must never reach a message or a log. */
export type Redactor = (text: string) => string;

export interface BackendReadOptions {
  binary: TerraformBinary;
  backend: BackendBlock;
  /** The whole environment of terraform: the service's own, where the backend's credentials live. */
  env: NodeJS.ProcessEnv;
  /** For both steps together; on expiry terraform's whole process group is killed. */
  timeoutMs: number;
  /** Largest raw state accepted (bytes of `state pull`). */
  maxBytes: number;
  redact: Redactor;
  /** Where the scratch directory goes (default: the system temporary directory). */
  parentDir?: string;
}

export interface PulledState {
  /** The raw state file (`state pull`), readable by this process only; gone after the read. */
  rawFile: string;
}

/** Enough of terraform's stderr to find its "Error:" block. */
const STDERR_TAIL_BYTES = 16 * 1024;

/**
 * The scratch directory's only file: `main.tf.json`. JSON, not HCL, so a value can never close a string and
 * add a block. Terraform takes backend settings in JSON literally; OpenTofu evaluates them as templates
 * (it allows variables there), so for OpenTofu `${` and `%{` are escaped as `$${` and `%%{`.
 */
export function renderBackendConfig(backend: BackendBlock, product: TerraformBinary['product']): string {
  const config = product === 'opentofu' ? escapeTemplates(backend.config) : backend.config;
  const terraform = backend.type === 'cloud' ? { cloud: config } : { backend: { [backend.type]: config } };
  return `${JSON.stringify({ terraform }, null, 2)}\n`;
}

function escapeTemplates<T extends BackendValue>(value: T): T {
  if (typeof value === 'string') return value.replace(/([$%])\{/g, '$1$1{') as T;
  if (Array.isArray(value)) return value.map(escapeTemplates) as T;
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeTemplates(v)])) as T;
  }
  return value;
}

/**
 * Pulls the state through terraform and hands it to `consume` while the scratch directory exists; removes
 * the directory (state values are secrets) however it ends. Whether the backend held a state at all is the
 * consumer's to say, by the one rule (readPulledState: nothing pulled, or no lineage), with noStateError.
 */
export async function readBackendState<T>(
  options: BackendReadOptions,
  consume: (state: PulledState) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(options.parentDir ?? tmpdir(), 'tfgate-state-'));
  const deadline = Date.now() + options.timeoutMs;
  try {
    await chmod(dir, 0o700);
    await writeFile(join(dir, 'main.tf.json'), renderBackendConfig(options.backend, options.binary.product), {
      mode: 0o600,
    });
    const env: NodeJS.ProcessEnv = {
      ...options.env,
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      CHECKPOINT_DISABLE: '1',
      TF_DATA_DIR: join(dir, '.terraform'),
    };
    const run = (step: BackendReadStep, args: string[]) =>
      runStep(options, step, [`-chdir=${dir}`, ...args], env, deadline);

    // An empty -plugin-dir: init installs no provider. It would install every provider the state names
    // (a download each read, or a failure offline); reading the raw state needs none.
    const noPlugins = join(dir, 'no-plugins');
    await mkdir(noPlugins, { mode: 0o700 });
    const init = run('init', [
      'init',
      '-input=false',
      '-no-color',
      '-backend=true',
      '-get=false',
      `-plugin-dir=${noPlugins}`,
    ]);
    await init.done.catch((error: unknown) => {
      // init's last step is the providers: reaching it means the backend answered and the state was read,
      // so its failure there (a provider the state names, never installed) does not concern the pull.
      if (!(error instanceof BackendReadError) || error.timedOut || !init.reachedProviders()) throw error;
    });

    const rawFile = join(dir, 'state.tfstate');
    const pull = run('pull', ['state', 'pull']);
    const file = createWriteStream(rawFile, { mode: 0o600 });
    let bytes = 0;
    pull.child.stdout!.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > options.maxBytes)
        pull.abort(`the state is larger than the limit of ${options.maxBytes} bytes`);
    });
    pull.child.stdout!.pipe(file);
    await pull.done;
    await finished(file);
    return await consume({ rawFile });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The backend has no state for these settings (readPulledState's rule: `state pull` printed nothing, or an
 * empty state with no lineage). It most often means a wrong key, path, schema or workspace: never judged.
 */
export function noStateError(type: string): BackendReadError {
  return new BackendReadError(
    'pull',
    `the ${type} backend holds no state for these settings; check them (the key, path, schema or workspace): an empty state is never judged`,
  );
}

interface Step {
  child: ChildProcess;
  /** Settles when terraform exited; rejects with a BackendReadError unless it exited 0. */
  done: Promise<void>;
  /** Kill the process group; with a reason, `done` rejects with it. */
  abort(reason: string | undefined): void;
  /** init only: it printed the heading of its last step, the providers (terraform's and OpenTofu's words). */
  reachedProviders(): boolean;
}

const PROVIDERS_HEADING = /(^|\n)Initializing provider plugins\.\.\./;

function runStep(
  options: BackendReadOptions,
  step: BackendReadStep,
  args: string[],
  env: NodeJS.ProcessEnv,
  deadline: number,
): Step {
  const command = options.binary.command;
  // Own process group, so the time limit kills terraform and any provider plugin it started, together.
  const { child, result } = spawnProcess(command, args, {
    env,
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
  });
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  });
  // init prints its errors on stdout as well as stderr; pull prints its data there.
  let providers = false;
  if (step === 'init') {
    child.stdout?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      providers ||= PROVIDERS_HEADING.test(tail);
    });
  }
  let aborted: BackendReadError | undefined;
  let killed = false;
  let exited = false;
  const killGroup = () => {
    if (killed || exited || child.pid === undefined) return;
    killed = true;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(
    () => {
      aborted = new BackendReadError(
        step,
        `reading the ${options.backend.type} state ran past its time limit of ${options.timeoutMs} ms (during ${command} ${step === 'pull' ? 'state pull' : step}); terraform was stopped`,
        { timedOut: true },
      );
      killGroup();
    },
    Math.max(0, deadline - Date.now()),
  );
  const done = result.then((outcome) => {
    exited = true;
    clearTimeout(timer);
    if (aborted) throw aborted;
    if (outcome.spawnError) {
      throw new BackendReadError(
        step,
        `cannot run ${command}: ${outcome.spawnError.code ?? 'spawn failed'}`,
        {
          cause: outcome.spawnError,
        },
      );
    }
    if (outcome.exitCode === 0 && !killed) return;
    const summary = firstErrorSummary(tail);
    const text = options.redact(stripAnsi(summary ?? lastLines(tail)));
    throw new BackendReadError(
      step,
      `${command} ${step === 'pull' ? 'state pull' : step} failed reading the ${options.backend.type} state${text ? `: ${text}` : ''}`,
      { terraformError: summary === undefined ? undefined : options.redact(summary) },
    );
  });
  // Observed here so an abandoned step never surfaces as an unhandled rejection.
  done.catch(() => undefined);
  return {
    child,
    done,
    abort(reason) {
      if (reason !== undefined && !aborted) aborted = new BackendReadError(step, reason);
      killGroup();
    },
    reachedProviders: () => providers,
  };
}

function lastLines(text: string): string {
  return stripAnsi(text).trim().split('\n').slice(-3).join(' ').slice(0, 500);
}
