// `tfgate` on PATH for the examples' commands, as a global install or a runner image puts it: a directory
// holding a `tfgate` that runs the built CLI (dist/cli/main.js, built by buildCli()) with this Node.js.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_MAIN } from '../helpers/cli.js';

/** A new temporary directory with the `tfgate` launcher in it (remove it when done). */
export function tfgateBinDir(prefix = 'tfgate-bin-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'tfgate'), `#!/bin/sh\nexec "${process.execPath}" "${CLI_MAIN}" "$@"\n`, {
    mode: 0o755,
  });
  return dir;
}
