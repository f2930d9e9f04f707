#!/usr/bin/env node
// The CLI's entry (bundled by scripts/bundle-cli.mjs into dist/cli/main.js): enable V8's compile cache
// first, then load everything else, so the cache covers every module the command loads.
import { enableCompileCache } from './compile-cache.js';

enableCompileCache();
await import('./main.js');
