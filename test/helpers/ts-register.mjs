// `node --import ./test/helpers/ts-register.mjs src/cli/main.ts ...` runs the CLI from source.
import { registerHooks } from 'node:module';
import { load, resolve } from './ts-hooks.mjs';

registerHooks({ resolve, load });
