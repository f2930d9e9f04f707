// ANSI colour, used only on a TTY and never when NO_COLOR is set (https://no-color.org).
export interface Painter {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

const COLOR: Painter = {
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  bold: wrap(1, 22),
  dim: wrap(2, 22),
};
const identity = (s: string) => s;
const PLAIN: Painter = { red: identity, green: identity, yellow: identity, bold: identity, dim: identity };

export function painter(color: boolean): Painter {
  return color ? COLOR : PLAIN;
}

/** Colour only for a terminal, and never when NO_COLOR is present and not empty. */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}
