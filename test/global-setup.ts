// Make the pinned tools that scripts/setup-tools.sh installs visible to every test and child process.
import { existsSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';

export default function setup(): void {
  const toolsBin = resolve(import.meta.dirname, '..', '.tools', 'bin');
  if (existsSync(toolsBin) && !(process.env.PATH ?? '').split(delimiter).includes(toolsBin)) {
    process.env.PATH = `${toolsBin}${delimiter}${process.env.PATH ?? ''}`;
  }
}
