// `tfgate state push`: send the observed state (terraform show -json) to the service, streamed.
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { resolveClientConfig } from '../client/index.js';
import { TerraformError, UsageError } from '../errors/index.js';
import { packageIdSchema, parseOptions } from '../options/common.js';
import { observedStateResponseSchema } from '../schemas/contract.js';
import { spawnProcess } from '../terraform/process.js';
import { callService } from './service-call.js';

export const statePushOptionsSchema = z.object({
  package: packageIdSchema,
  stateJson: z.string().min(1).optional(),
  chdir: z.string().min(1).optional(),
  terraformBin: z.string().min(1).optional(),
  baseUrl: z.string().optional(),
  caFile: z.string().optional(),
});
export type StatePushOptions = z.input<typeof statePushOptionsSchema>;

export interface StatePushResult {
  packageId: string;
  resources: number;
  pushedAt: string;
  source: string;
}

function terraformShow(
  bin: string,
  chdir: string | undefined,
  env: NodeJS.ProcessEnv,
): { stream: Readable; done: Promise<void> } {
  const args = [...(chdir ? [`-chdir=${chdir}`] : []), 'show', '-json'];
  const { child, result } = spawnProcess(bin, args, {
    // The caller's env extends ours, as before.
    env: { ...process.env, ...env, TF_IN_AUTOMATION: '1' },
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: { stderr: true },
  });
  const done = result.then((outcome) => {
    if (outcome.exitCode !== 0) {
      const how = outcome.spawnError
        ? `could not start (${outcome.spawnError.code ?? outcome.spawnError.message})`
        : outcome.signal
          ? `was killed by ${outcome.signal}`
          : `exited with ${outcome.exitCode}`;
      throw new TerraformError(
        'terraform_show_failed',
        `${bin} ${args.join(' ')} ${how}: ${(outcome.stderr ?? '').trim()}`,
        {
          hint: 'run it in the directory of your configuration after terraform init, or pass --state-json <file>',
        },
      );
    }
  });
  return { stream: child.stdout as Readable, done };
}

export async function statePush(
  input: StatePushOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StatePushResult> {
  const options = parseOptions(statePushOptionsSchema, input, {
    package: '--package',
    stateJson: '--state-json',
    chdir: '--chdir',
    terraformBin: '--terraform-bin',
  });
  const config = await resolveClientConfig({ baseUrl: options.baseUrl, caFile: options.caFile }, env);
  let stream: Readable;
  let done: Promise<void> = Promise.resolve();
  let source: string;
  if (options.stateJson) {
    await access(options.stateJson).catch((error: unknown) => {
      throw new UsageError('state_file_not_found', `cannot read --state-json ${options.stateJson}`, {
        cause: error,
      });
    });
    stream = options.stateJson === '-' ? process.stdin : createReadStream(options.stateJson);
    source = options.stateJson;
  } else {
    const bin = options.terraformBin ?? env.TFGATE_TERRAFORM_BIN ?? 'terraform';
    ({ stream, done } = terraformShow(bin, options.chdir, env));
    source = `${bin} show -json`;
  }
  // If terraform fails, its error explains more than the service's "invalid state" would.
  const [call] = await Promise.allSettled([
    callService(
      config,
      'PUT',
      `/v1/analysis/conformance/packages/${options.package}/observed-state`,
      { stream, contentType: 'application/json' },
      { what: 'the observed state push', status: 200, schema: observedStateResponseSchema },
    ),
    done,
  ]).then(async (results) => {
    await done;
    return results;
  });
  if (call.status === 'rejected') throw call.reason;
  const body = call.value;
  return { packageId: options.package, resources: body.resources, pushedAt: body.pushed_at, source };
}
