// What the user typed (a path, a glob), as an error message shows it. Messages go to a terminal or a CI log,
// one line each: a newline in a path given on the command line would split the message and let the rest
// pass for a line of its own (a forged "::error::" or "PASS" in a CI log), ESC starts a terminal escape
// sequence, and a bidirectional override reorders what the reader sees.

/** The characters a message never prints as they are: C0 and C1 controls, DEL, and bidirectional controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
export const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A character as its visible escape: U+001B as `\u001b`. */
export const visibleEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A path as given, when it holds none of those characters (most paths: the message reads as before);
 * else quoted as a JSON string, every such character escaped (`"a\nb.json"`), so the message stays one line
 * and says exactly which path was given.
 */
export function shownPath(path: string): string {
  if (path.search(UNSAFE_CHARACTERS) < 0) return path;
  return JSON.stringify(path).replace(UNSAFE_CHARACTERS, visibleEscape);
}

/**
 * A message that may name `path` as it is (a Node.js error's "open 'a\nb'"), with the path shown safely: in
 * the message's own quotes when it is quoted as it is (the escaped path brings its own).
 */
export function withShownPath(message: string, path: string): string {
  const shown = shownPath(path);
  if (shown === path) return message;
  return message.split(`'${path}'`).join(shown).split(path).join(shown);
}
