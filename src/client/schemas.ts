// What the client accepts in response bodies: the contract's schemas (src/schemas/contract.ts), read
// leniently so that any service following the interface works. A body that does not match is never
// trusted: the decision then comes from the status code alone.
import type { EvaluationResult, GateResult } from '../model/index.js';
import {
  evaluationCountsSchema,
  evaluationResultFields,
  gateResultFields,
  publicKeyFields,
} from '../schemas/contract.js';
import * as z from '../schemas/zod.js';

export { type ContractError, errorBodySchema } from '../schemas/contract.js';

// The counts the contract does not name read as 0 when a service leaves them out.
const zeroIfMissing = z._default(z.number().check(z.int(), z.gte(0)), 0);

/** The evaluation result as the model has it: additive counts default to 0, the 409 body's `error` is dropped. */
export const lenientEvaluationResultSchema = z.extend(z.omit(evaluationResultFields, { error: true }), {
  counts: z.extend(evaluationCountsSchema, {
    updates: zeroIfMissing,
    reads: zeroIfMissing,
    imports: zeroIfMissing,
    forgets: zeroIfMissing,
    no_ops: zeroIfMissing,
  }),
}) satisfies z.core.$ZodType<EvaluationResult, unknown>;

/** The gate result as the model has it: the 409 body's `error` is dropped. */
export const lenientGateResultSchema = z.omit(gateResultFields, { error: true }) satisfies z.core.$ZodType<
  GateResult,
  unknown
>;

/** Only the PEM is used, so any algorithm name is accepted here; the key itself is checked when parsed. */
export const lenientPublicKeySchema = z.extend(publicKeyFields, { algorithm: z.string() });
