// Where one plan comes from (--plan-json or --plan-file) and opening it as a PlanSource: shared by the
// single-plan check and the many-plan check.
import { access, constants } from 'node:fs/promises';
import { InvalidPlanError } from '../errors/index.js';
import { fileSource, type PlanSource, stdinSource } from '../plan/index.js';
import * as z from '../schemas/zod.js';

/** Where the plan comes from: exactly one of --plan-json and --plan-file. */
export const planInputSchema = z.discriminatedUnion('kind', [
  /** `terraform show -json` output in a file, or "-" for stdin. */
  z.object({ kind: z.literal('plan-json'), path: z.string().check(z.minLength(1)) }),
  /** A saved plan (Atlantis's $PLANFILE, Spacelift's spacelift.plan), streamed through `terraform show -json`. */
  z.object({
    kind: z.literal('plan-file'),
    path: z.string().check(z.minLength(1)),
    chdir: z.optional(z.string().check(z.minLength(1))),
    terraformBin: z.optional(z.string().check(z.minLength(1))),
  }),
]);
export type PlanInputOption = z.output<typeof planInputSchema>;

/** A plan that cannot be read leaves nothing to decide on: exit 4, naming the file. */
export async function planSource(
  plan: PlanInputOption,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PlanSource> {
  switch (plan.kind) {
    case 'plan-file': {
      await access(plan.path, constants.R_OK).catch((error: unknown) => {
        throw new InvalidPlanError(`cannot read the plan file ${plan.path}: ${(error as Error).message}`, {
          hint: 'pass a plan written by `terraform plan -out <planfile>` (Atlantis: $PLANFILE; Spacelift: spacelift.plan)',
          cause: error,
        });
      });
      // Loaded on demand: only --plan-file runs terraform.
      const { Terraform } = await import('../terraform/index.js');
      const terraform = await Terraform.open({ bin: plan.terraformBin, chdir: plan.chdir, env });
      return terraform.showJson(plan.path);
    }
    case 'plan-json':
      if (plan.path === '-') return stdinSource();
      await access(plan.path, constants.R_OK).catch((error: unknown) => {
        throw new InvalidPlanError(`cannot read the plan ${plan.path}: ${(error as Error).message}`, {
          hint: 'pass the output of `terraform show -json <planfile>` (or - to read it from stdin)',
          cause: error,
        });
      });
      return fileSource(plan.path);
  }
}
