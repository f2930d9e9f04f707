// tfgate's own progress on stderr: steps with timings; a spinner on a TTY, plain lines in CI; NO_COLOR respected.
import type { Writable } from 'node:stream';
import type { ProgressReporter as Progress } from '../commands/wrapper/progress.js';

// The one progress interface is the wrapper's (src/commands/wrapper/progress.ts); this is its terminal form.
export {
  type ProgressReporter as Progress,
  type StepOptions,
  silentProgress,
} from '../commands/wrapper/progress.js';

export interface ProgressOptions {
  stream?: Writable & { isTTY?: boolean };
  env?: NodeJS.ProcessEnv;
  /** Injected clock, for tests. */
  now?: () => number;
}

const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPINNER_INTERVAL_MS = 80;

export function isInteractive(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !isCi(env);
}

function isCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI?.toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/** NO_COLOR (any non-empty value) wins; otherwise colour only on an interactive terminal. */
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

export function createProgress(options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const env = options.env ?? process.env;
  const now = options.now ?? (() => performance.now());
  const interactive = isInteractive(stream, env);
  const color = useColor(stream, env);
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  // A line written while a spinner is drawn replaces the spinner's line (it is drawn again on its next frame),
  // rather than being glued to its end.
  let spinning = false;
  const write = (line: string) => stream.write(`${spinning ? '\r\u001b[2K' : ''}${line}\n`);
  const prefix = interactive ? '' : 'tfgate: ';

  return {
    async step(label, run, stepOptions = {}) {
      const started = now();
      let spinner: NodeJS.Timeout | undefined;
      if (interactive && !stepOptions.live) {
        let frame = 0;
        const draw = () => {
          const elapsed = formatDuration(now() - started);
          stream.write(
            `\r\u001b[2K${paint('36', SPINNER_FRAMES[frame % SPINNER_FRAMES.length]!)} ${label} ${paint('2', elapsed)}`,
          );
          frame++;
        };
        draw();
        spinning = true;
        spinner = setInterval(draw, SPINNER_INTERVAL_MS);
        spinner.unref();
      } else {
        write(`${prefix}${paint('36', '▶')} ${label}`);
      }
      const clear = () => {
        if (spinner !== undefined) {
          clearInterval(spinner);
          spinning = false;
          stream.write('\r\u001b[2K');
        }
      };
      try {
        const value = await run();
        clear();
        write(`${prefix}${paint('32', '✔')} ${label} ${paint('2', `(${formatDuration(now() - started)})`)}`);
        return value;
      } catch (error) {
        clear();
        write(`${prefix}${paint('31', '✖')} ${label} ${paint('2', `(${formatDuration(now() - started)})`)}`);
        throw error;
      }
    },
    info(message) {
      write(`${prefix}${message}`);
    },
    warn(message) {
      write(`${prefix}${paint('33', `warning: ${message}`)}`);
    },
    banner(message) {
      const rule = '!'.repeat(Math.min(100, Math.max(40, message.length)));
      write(paint('1;33', rule));
      write(paint('1;33', `tfgate: ${message}`));
      write(paint('1;33', rule));
    },
  };
}
