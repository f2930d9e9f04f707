// `terraform show -json <planfile>` as a PlanSource: a stream, never held in memory, re-run on each open().
import { PassThrough, type Readable } from 'node:stream';
import { execa } from 'execa';
import type { PlanSource } from '../plan/index.js';
import { explainFailure } from './failures.js';
import { globalArgs, type RunContext, terraformEnv } from './run.js';

/**
 * Each open() spawns a fresh `show -json`, so a retried upload re-streams from the plan file. The stream
 * ends only after terraform exited 0; a non-zero exit destroys it with the explained TerraformError, so a
 * truncated plan can never pass for a whole one. A consumer that stops reading early kills terraform.
 */
export function showJsonSource(context: Omit<RunContext, 'stdout'>, planFile: string): PlanSource {
  const command = context.binary.command;
  return {
    description: `${command} show -json ${planFile}`,
    reopenable: true,
    open(): Readable {
      const subprocess = execa(command, [...globalArgs(context), 'show', '-json', planFile], {
        env: terraformEnv(context.env),
        extendEnv: false,
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
        buffer: { stdout: false, stderr: true },
        reject: false,
        detached: true,
      });
      const untrack = context.guard?.track(subprocess) ?? (() => {});
      const output = new PassThrough();
      let finished = false;
      subprocess.stdout.pipe(output, { end: false });
      subprocess.then((result) => {
        finished = true;
        untrack();
        if (result.exitCode === 0 && result.signal === undefined) {
          output.end();
          return;
        }
        const stderr = String(result.stderr ?? '');
        if (stderr) process.stderr.write(stderr.endsWith('\n') ? stderr : `${stderr}\n`);
        output.destroy(
          explainFailure({ step: 'show', command, exitCode: result.exitCode, signal: result.signal, stderr }),
        );
      });
      output.on('close', () => {
        if (!finished) subprocess.kill('SIGTERM');
      });
      return output;
    },
  };
}
