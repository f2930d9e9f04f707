// `node --import ./test/helpers/ts-register.mjs src/cli/main.ts ...` runs the CLI from source.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
