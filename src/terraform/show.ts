// `terraform show -json [<planfile>]` as a PlanSource: a stream, never held in memory, re-run on each open().
// Without a plan file terraform shows the current state (`tfgate state push`); `state pull` streams the raw
// state the same way (`tfgate state push` asks it whether a state exists when show printed none).
import { PassThrough, type Readable } from 'node:stream';
import type { PlanSource } from '../plan/index.js';
import { explainFailure, type TerraformStep } from './failures.js';
import { spawnProcess } from './process.js';
import { globalArgs, type RunContext, terraformEnv, trackSignals } from './run.js';

/**
 * Each open() spawns a fresh `show -json`, so a retried upload re-streams from the plan file. The stream
 * ends only after terraform exited 0; a non-zero exit destroys it with the explained TerraformError, so a
 * truncated plan can never pass for a whole one. A consumer that stops reading early kills terraform.
 */
export function showJsonSource(context: Omit<RunContext, 'stdout'>, planFile?: string): PlanSource {
  const command = context.binary.command;
  return outputSource(
    context,
    'show',
    // -no-color always: show's stderr is captured, re-printed and quoted in tfgate's error, never shown
    // live, so colour codes would only reach logs and messages.
    ['show', '-json', '-no-color', ...(planFile === undefined ? [] : [planFile])],
    planFile === undefined ? `${command} show -json` : `${command} show -json ${planFile}`,
  );
}

/** `state pull`: the raw state, as the backend (or the local file) holds it; nothing at all when none. */
export function statePullSource(context: Omit<RunContext, 'stdout'>): PlanSource {
  return outputSource(
    context,
    'state pull',
    ['state', 'pull', '-no-color'],
    `${context.binary.command} state pull`,
  );
}

function outputSource(
  context: Omit<RunContext, 'stdout'>,
  step: TerraformStep,
  args: string[],
  description: string,
): PlanSource {
  const command = context.binary.command;
  return {
    description,
    reopenable: true,
    open(): Readable {
      const { child, result } = spawnProcess(command, [...globalArgs(context), ...args], {
        env: terraformEnv(context.env),
        stdout: 'pipe',
        stderr: 'pipe',
        buffer: { stderr: true },
        detached: true,
      });
      const untrack = trackSignals(context, child);
      const output = new PassThrough();
      let finished = false;
      child.stdout?.pipe(output, { end: false });
      void result.then((outcome) => {
        finished = true;
        untrack();
        if (outcome.exitCode === 0 && outcome.signal === undefined) {
          output.end();
          return;
        }
        const stderr = outcome.stderr ?? '';
        if (stderr) process.stderr.write(stderr.endsWith('\n') ? stderr : `${stderr}\n`);
        output.destroy(
          explainFailure({
            step,
            command,
            exitCode: outcome.exitCode,
            signal: outcome.signal,
            stderr,
          }),
        );
      });
      output.on('close', () => {
        if (finished) return;
        child.kill('SIGTERM');
        // Nobody reads any more: drop what is buffered so the pipe closes and the result settles.
        child.stdout?.destroy();
      });
      return output;
    },
  };
}
