// The Node.js lines tfgate supports, as package.json's engines says them (test/cli/node-support.test.ts holds
// the two to each other). npm checks engines at install time only, so every command says it on stderr when
// it runs on another Node: a pipeline on Node 20 (end of life) would otherwise decide on a runtime nothing
// was tested on, without a word.

/** package.json's `engines.node`. */
export const SUPPORTED_NODE_RANGE = '^22.16.0 || ^24.0.0 || >=26.0.0';

type Version = readonly [major: number, minor: number, patch: number];

function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether `version` ("v22.16.0") is in the range: alternatives of `^x.y.z` (same major, at least) and `>=x.y.z`. */
export function nodeSupported(version: string, range = SUPPORTED_NODE_RANGE): boolean {
  const running = parseVersion(version);
  // A version this cannot read (a custom build) is not warned about: the warning must never be wrong.
  if (!running) return true;
  return range.split('||').some((alternative) => {
    const match = /^\s*(\^|>=)\s*(\S+)\s*$/.exec(alternative);
    const floor = match ? parseVersion(match[2]!) : undefined;
    if (!match || !floor) return false;
    if (match[1] === '^') return running[0] === floor[0] && compare(running, floor) >= 0;
    return compare(running, floor) >= 0;
  });
}

/** The warning for a Node.js tfgate does not support (one line, no newline), or undefined on a supported one. */
export function unsupportedNodeWarning(version: string = process.version): string | undefined {
  if (nodeSupported(version)) return undefined;
  return `warning: Node.js ${version} is not supported by tfgate, which runs on Node.js 22 (22.16 or later), 24, and 26 or later (engines: ${SUPPORTED_NODE_RANGE}); it is not tested on this one and may fail in ways no test has seen: run it on a supported Node.js`;
}
