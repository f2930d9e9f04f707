// The commands as a library caller uses them: options written by hand go through the command's schema first
// (the CLI's normalisers do the same from flags), then the command runs on the parsed options.
import type * as z from 'zod/mini';
import { applyOptionsSchema, runApply as applyParsed } from '../../src/commands/apply.js';
import {
  bundlePullOptionsSchema,
  runBundlePull as bundlePullParsed,
} from '../../src/commands/bundle-pull.js';
import { checkOptionsSchema, runCheck as checkParsed } from '../../src/commands/check.js';
import { gateOptionsSchema, runGate as gateParsed } from '../../src/commands/gate.js';
import { planOptionsSchema, runPlan as planParsed } from '../../src/commands/plan.js';

type Rest<F> = F extends (options: never, ...rest: infer R) => unknown ? R : never;

export const runApply = (input: z.input<typeof applyOptionsSchema>, ...rest: Rest<typeof applyParsed>) =>
  applyParsed(applyOptionsSchema.parse(input), ...rest);
export const runPlan = (input: z.input<typeof planOptionsSchema>, ...rest: Rest<typeof planParsed>) =>
  planParsed(planOptionsSchema.parse(input), ...rest);
export const runCheck = (input: z.input<typeof checkOptionsSchema>, ...rest: Rest<typeof checkParsed>) =>
  checkParsed(checkOptionsSchema.parse(input), ...rest);
export const runGate = (input: z.input<typeof gateOptionsSchema>, ...rest: Rest<typeof gateParsed>) =>
  gateParsed(gateOptionsSchema.parse(input), ...rest);
export const runBundlePull = (
  input: z.input<typeof bundlePullOptionsSchema>,
  ...rest: Rest<typeof bundlePullParsed>
) => bundlePullParsed(bundlePullOptionsSchema.parse(input), ...rest);
