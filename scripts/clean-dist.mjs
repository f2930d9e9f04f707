// `npm pack` and `npm publish` (prepack) build from an empty dist/, so a module deleted from src/ can never
// ship as a stale file.
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
