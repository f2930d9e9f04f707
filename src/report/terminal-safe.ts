// Plan addresses, messages, acknowledgement reasons and ids come from plans, state and users, and the text
// report goes to a terminal or a CI log: a control character there is a command (ESC starts a terminal
// escape sequence, CR rewrites the line) and a bidirectional override reorders what a reviewer reads. They
// are shown as visible \u escapes instead, so what is printed is what was given.
import { UNSAFE_CHARACTERS as UNSAFE, visibleEscape } from '../errors/shown.js';
import type { ReportView } from './view.js';

export { visibleEscape };

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visibleEscape);
}

/** A message of several lines: each line terminal-safe, its line breaks (\n or \r\n) kept as \n. */
export function terminalSafeLines(text: string): string {
  return text.split(/\r?\n/).map(terminalSafe).join('\n');
}

/**
 * An error for stderr: terminal-safe, and no line of it a GitHub Actions workflow command ("::error::…", a
 * quoted option or path holding a line break): on a CI log only tfgate's own annotations are. For tfgate's
 * errors and commander's alike.
 */
export function terminalSafeError(text: string): string {
  return terminalSafeLines(text).replace(/^::/gm, ' ::');
}

/** As terminalSafe, but for HTML: tabs and line breaks stay, since there they are only whitespace. */
export function htmlSafeControls(text: string): string {
  return text.replace(UNSAFE, (c) => (c === '\t' || c === '\n' || c === '\r' ? c : visibleEscape(c)));
}

/** The view with every string shown to a reader made terminal-safe. */
export function terminalSafeView(view: ReportView): ReportView {
  const safe = <T>(value: T): T => {
    if (typeof value === 'string') return terminalSafe(value) as T;
    if (Array.isArray(value)) return value.map(safe) as T;
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, safe(v)])) as T;
    return value;
  };
  return safe(view);
}
