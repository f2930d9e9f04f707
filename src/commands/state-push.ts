// `tfgate state push`: send the observed state (terraform show -json) to the service, streamed, through the
// one service client; terraform runs through the one terraform runner (binary resolution, signal guard).
// The state is read on its way out by the reader the service uses, so a state that holds none is never sent
// whole: `show -json` prints the same `{"format_version":"1.0"}` where there is no state and where every
// resource was destroyed, and only `terraform state pull` tells the two apart.
import { access } from 'node:fs/promises';
import { PassThrough, type Readable, Transform } from 'node:stream';
import { packagePath, ServiceClient } from '../client/index.js';
import {
  InterruptedError,
  type InterruptSignal,
  InvalidPlanError,
  isTfgateError,
  StateMissingError,
  TerraformError,
  type TfgateError,
  UsageError,
} from '../errors/index.js';
import { shownPath } from '../errors/shown.js';
import type { PlanSource } from '../model/evaluator.js';
import { packageIdSchema, serviceConnectionSchema } from '../options/common.js';
import { bufferSource, fileSource, readObservedState, stdinSource } from '../plan/index.js';
import { readPulledState } from '../plan/read-raw-state.js';
import { observedStateResponseSchema } from '../schemas/contract.js';
import * as z from '../schemas/zod.js';
import { SignalGuard, Terraform } from '../terraform/index.js';

export const statePushOptionsSchema = z.extend(serviceConnectionSchema, {
  package: packageIdSchema,
  /** A file with `terraform show -json` output, or "-" for stdin; without it terraform runs. */
  stateJson: z.optional(z.string().check(z.minLength(1))),
  chdir: z.optional(z.string().check(z.minLength(1))),
  terraformBin: z.optional(z.string().check(z.minLength(1))),
});
export type StatePushOptions = z.output<typeof statePushOptionsSchema>;

export interface StatePushResult {
  packageId: string;
  resources: number;
  pushedAt: string;
  source: string;
}

export interface StatePushContext {
  env: NodeJS.ProcessEnv;
}

type PushResponse = z.output<typeof observedStateResponseSchema>;

/** What state push is doing when a signal comes: a terraform step, or waiting on the service. */
type PushStep = 'terraform show -json' | 'terraform state pull' | typeof READING | typeof PUSHING;
const PUSHING = 'pushing the state to the service';
/** --state-json: the file (or stdin) is still being read and sent; the service has not all of it. */
const READING = 'reading --state-json';

export async function statePush(
  options: StatePushOptions,
  context: StatePushContext,
): Promise<StatePushResult> {
  const client = await ServiceClient.fromOptions(
    { baseUrl: options.baseUrl, caFile: options.caFile },
    context.env,
  );
  // A signal goes to terraform, which stops (then nothing is pushed), or ends the push with a message saying
  // whether the service may have the state; with --state-json it used to kill tfgate without a word.
  const guard = SignalGuard.install();
  let stopWaiting = () => {};
  let step: PushStep = options.stateJson === undefined ? 'terraform show -json' : READING;
  // The step the first signal came in: what fails after it (the push winding down) was not interrupted.
  let interruptedIn: PushStep | undefined;
  // Once terraform's output has all been read, terraform has exited: what is left is the service's answer.
  const sent = () => {
    step = PUSHING;
  };
  try {
    const interrupted = new Promise<never>((_, reject) => {
      stopWaiting = guard.onSignal((signal) => {
        interruptedIn ??= step;
        reject(interruptedError(signal, interruptedIn));
      });
    });
    interrupted.catch(() => {});
    const terraform =
      options.stateJson === undefined
        ? await Terraform.open({ bin: options.terraformBin, chdir: options.chdir, env: context.env, guard })
        : undefined;
    let source = terraform ? terraform.showStateJson() : await stateFile(options.stateJson!);
    let body: PushResponse;
    try {
      body = await push(client, options.package, source, interrupted, sent);
    } catch (error) {
      if (guard.received !== undefined) throw interruptedError(guard.received, interruptedIn ?? step);
      if (!(error instanceof StateMissingError) || terraform === undefined) throw error;
      // show -json printed no state: is there none, or one whose every resource was destroyed?
      step = 'terraform state pull';
      source = await existingEmptyState(terraform, options.chdir).catch((failure: unknown) => {
        throw guard.received === undefined
          ? failure
          : interruptedError(guard.received, interruptedIn ?? step);
      });
      // state pull has exited: from here on only the service is waited on.
      step = PUSHING;
      body = await push(client, options.package, source, interrupted, sent);
    }
    return {
      packageId: options.package,
      resources: body.resources,
      pushedAt: body.pushed_at,
      source: source.description,
    };
  } catch (error) {
    if (guard.received !== undefined) throw interruptedError(guard.received, interruptedIn ?? step);
    throw error;
  } finally {
    stopWaiting();
    guard.dispose();
    // After a signal, a request to a hung service must not hold tfgate: close without waiting for it.
    if (guard.received === undefined) await client.close();
    else client.close().catch(() => {});
  }
}

/**
 * PUT the state, read on the way; the source's own failure (terraform's, the reader's) explains the most.
 * `sent` is told once the whole source has been read (terraform has exited), before its last chunk goes out.
 */
async function push(
  client: ServiceClient,
  packageId: string,
  source: PlanSource,
  interrupted: Promise<never>,
  sent: () => void,
): Promise<PushResponse> {
  let sourceFailure: TfgateError | undefined;
  const checked = readOnTheWay(
    source,
    (error) => {
      sourceFailure ??= error;
    },
    sent,
  );
  const call = client.call({
    request: {
      operation: 'observed state push',
      method: 'PUT',
      path: packagePath(packageId, 'observed-state'),
      packageId,
      headers: { 'content-type': 'application/json' },
      body: checked,
    },
    what: 'the observed state push',
    status: 200,
    schema: observedStateResponseSchema,
  });
  call.catch(() => {});
  return Promise.race([call, interrupted]).catch((error: unknown) => {
    throw sourceFailure ?? error;
  });
}

/**
 * The state as it goes out, read on the way by the reader the service uses (readObservedState). The last
 * chunk is held back until the whole document has been read, so a state tfgate refuses (one that holds no
 * state, or no state at all) never completes an upload, whatever implementation of the service receives it.
 * A failure of the source or of the reader ends the stream with that error, told to `failed` first.
 */
function readOnTheWay(
  source: PlanSource,
  failed: (error: TfgateError) => void,
  sent: () => void,
): PlanSource {
  return {
    description: source.description,
    reopenable: source.reopenable,
    open(): Readable {
      const input = source.open();
      const copy = new PassThrough();
      const stop = (error: unknown) => {
        // Once the upload has ended the stream (a lost connection, an early answer), what fails after is
        // only the consequence (the reader's copy was cut short), never the cause.
        if (output.destroyed) return;
        if (isTfgateError(error)) failed(error);
        output.destroy(error as Error);
      };
      let held: Buffer | undefined;
      const output = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          if (held !== undefined) this.push(held);
          held = chunk;
          if (copy.write(chunk)) callback();
          else copy.once('drain', () => callback());
        },
        flush(callback) {
          sent();
          copy.end();
          read.then(() => {
            if (held !== undefined) this.push(held);
            callback();
          }, stop);
        },
      });
      const read = readObservedState(copy, { description: source.description });
      read.catch(stop);
      input.once('error', stop);
      output.once('close', () => {
        input.destroy();
        copy.destroy();
      });
      input.pipe(output);
      return output;
    },
  };
}

/**
 * After `show -json` printed no state: `state pull` says whether a state exists, by the rule backend reads use
 * (readPulledState). None is a refusal; a state with no resources left (all destroyed) is pushed as such.
 */
async function existingEmptyState(terraform: Terraform, chdir: string | undefined): Promise<PlanSource> {
  const pull = terraform.statePull();
  let pulled: Awaited<ReturnType<typeof readPulledState>>;
  try {
    pulled = await readPulledState(pull.open(), { description: `what ${pull.description} printed` });
  } catch (error) {
    if (error instanceof TerraformError) throw error;
    throw new InvalidPlanError(
      `${terraform.description} printed no state with show -json, and ${pull.description} printed something that is not a state: ${(error as Error).message}`,
      { hint: 'run `terraform state pull` in that directory to see what it prints', cause: error },
    );
  }
  const where = chdir ?? 'the working directory';
  if (pulled === undefined) {
    throw new StateMissingError(
      `there is no Terraform state in ${where}: \`${terraform.binary.command} show -json\` printed no values and \`${pull.description}\` printed no state, so nothing was pushed (an absent state is never pushed as "nothing exists")`,
      {
        hint: `run tfgate state push in the configuration's directory (or pass --chdir <dir>), after \`${terraform.binary.command} init\`, in the workspace that holds the state`,
        details: { source: pull.description },
      },
    );
  }
  if (pulled.state.resources.length > 0) {
    throw new InvalidPlanError(
      `the state in ${where} changed while it was read: \`${terraform.binary.command} show -json\` printed no resources, then \`${pull.description}\` printed ${pulled.state.resources.length}`,
      { hint: 'run tfgate state push again once no other terraform run is writing the state' },
    );
  }
  // What show -json prints for a state with no resources when it prints one (outputs aside, which are not read).
  const empty = {
    format_version: '1.0',
    ...(pulled.state.terraform_version === undefined
      ? {}
      : { terraform_version: pulled.state.terraform_version }),
    values: { root_module: {} },
  };
  return bufferSource(
    JSON.stringify(empty),
    `${pull.description} (the state exists, lineage ${pulled.identity.lineage}, and holds no resources)`,
  );
}

/**
 * A signal during a terraform step went to terraform too, which stopped: terraform's "interrupted" (exit 2),
 * nothing pushed. One once terraform had finished, while the service was sent the state or its answer was
 * awaited, ends tfgate as the signal ends `check` (130 for SIGINT): whether the service recorded the state
 * is not known.
 */
function interruptedError(signal: InterruptSignal, step: PushStep): TerraformError | InterruptedError {
  if (step === READING) {
    return new InterruptedError(
      signal,
      `interrupted by ${signal} while reading --state-json: the service did not get the whole state, so nothing was pushed`,
      { hint: 'run tfgate state push again' },
    );
  }
  if (step === PUSHING) {
    return new InterruptedError(
      signal,
      `interrupted by ${signal} while pushing the state to the service: terraform had finished, and the service may or may not have recorded the state`,
      {
        hint: "run tfgate state push again once the service answers: a push replaces the package's observed state, so pushing it again is safe",
      },
    );
  }
  return new TerraformError('interrupted', `interrupted by ${signal} during ${step}`, {
    hint: 'terraform stopped; nothing was pushed',
  });
}

/** The state to push from a file, or stdin ("-"). */
async function stateFile(path: string): Promise<PlanSource> {
  // "-" is stdin, as documented: it is never looked up as a file.
  if (path === '-') return stdinSource();
  await access(path).catch((error: unknown) => {
    throw new UsageError('state_file_not_found', `cannot read --state-json ${shownPath(path)}`, {
      hint: 'pass a file written by `terraform show -json`, or - to read it from stdin',
      cause: error,
    });
  });
  return fileSource(path);
}
