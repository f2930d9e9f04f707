// The private temporary home of a saved plan: mkdtemp, mode 0700, removed however the command ends.
import { chmodSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivatePlanDir {
  readonly dir: string;
  /** The saved plan's path inside it. A saved plan holds secrets in clear text: only its owner reads it. */
  readonly planFile: string;
  dispose(): Promise<void>;
}

export async function createPrivatePlanDir(parent: string = tmpdir()): Promise<PrivatePlanDir> {
  // Synchronous (microseconds each): made before terraform plan starts, so no thread-pool round trip delays it.
  const dir = mkdtempSync(join(parent, 'tfgate-plan-'));
  chmodSync(dir, 0o700);
  const planFile = join(dir, 'tfgate.tfplan');
  return {
    dir,
    planFile,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
