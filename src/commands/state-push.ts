// `tfgate state push`: send the observed state (terraform show -json) to the service, streamed, through the
// one service client; terraform runs through the one terraform runner (binary resolution, signal guard).
import { access } from 'node:fs/promises';
import { packagePath, ServiceClient } from '../client/index.js';
import { TerraformError, UsageError } from '../errors/index.js';
import type { PlanSource } from '../model/evaluator.js';
import { packageIdSchema, serviceConnectionSchema } from '../options/common.js';
import { fileSource, stdinSource } from '../plan/index.js';
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

export async function statePush(
  options: StatePushOptions,
  context: StatePushContext,
): Promise<StatePushResult> {
  const client = await ServiceClient.fromOptions(
    { baseUrl: options.baseUrl, caFile: options.caFile },
    context.env,
  );
  // Only while terraform runs: a signal goes to terraform, which stops; then nothing is pushed.
  const guard = options.stateJson === undefined ? SignalGuard.install() : undefined;
  let stopWaiting = () => {};
  try {
    const source = await stateSource(options, context.env, guard);
    let terraformFailure: unknown;
    const watched: PlanSource = {
      ...source,
      open() {
        const stream = source.open();
        stream.once('error', (error) => {
          if (error instanceof TerraformError) terraformFailure = error;
        });
        return stream;
      },
    };
    const interrupted = new Promise<never>((_, reject) => {
      stopWaiting = guard?.onSignal((signal) => reject(interruptedError(signal))) ?? (() => {});
    });
    interrupted.catch(() => {});
    const push = client.call({
      request: {
        operation: 'observed state push',
        method: 'PUT',
        path: packagePath(options.package, 'observed-state'),
        packageId: options.package,
        headers: { 'content-type': 'application/json' },
        body: watched,
      },
      what: 'the observed state push',
      status: 200,
      schema: observedStateResponseSchema,
    });
    push.catch(() => {});
    const body = await Promise.race([push, interrupted]).catch((error: unknown) => {
      if (guard?.received !== undefined) throw interruptedError(guard.received);
      // If terraform failed, its error explains more than "the state could not be read" would.
      throw terraformFailure ?? error;
    });
    return {
      packageId: options.package,
      resources: body.resources,
      pushedAt: body.pushed_at,
      source: source.description,
    };
  } finally {
    stopWaiting();
    guard?.dispose();
    // After a signal, a request to a hung service must not hold tfgate: close without waiting for it.
    if (guard?.received === undefined) await client.close();
    else client.close().catch(() => {});
  }
}

function interruptedError(signal: string): TerraformError {
  return new TerraformError('interrupted', `interrupted by ${signal} during terraform show -json`, {
    hint: 'terraform stopped; nothing was pushed',
  });
}

/** The state to push: a file, stdin ("-"), or `terraform show -json` in --chdir. */
async function stateSource(
  options: StatePushOptions,
  env: NodeJS.ProcessEnv,
  guard: SignalGuard | undefined,
): Promise<PlanSource> {
  // "-" is stdin, as documented: it is never looked up as a file.
  if (options.stateJson === '-') return stdinSource();
  if (options.stateJson !== undefined) {
    const path = options.stateJson;
    await access(path).catch((error: unknown) => {
      throw new UsageError('state_file_not_found', `cannot read --state-json ${path}`, {
        hint: 'pass a file written by `terraform show -json`, or - to read it from stdin',
        cause: error,
      });
    });
    return fileSource(path);
  }
  const terraform = await Terraform.open({ bin: options.terraformBin, chdir: options.chdir, env, guard });
  return terraform.showStateJson();
}
