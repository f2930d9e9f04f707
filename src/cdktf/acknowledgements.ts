// Acknowledgements written in CDKTF code: `ConformanceAspect.acknowledge(construct, { rule, reason })`.
// Stored on the construct under a global symbol, so that any copy of tfgate in the process sees them.
import { UsageError } from '../errors/index.js';
import { acknowledgementExpired, PLAN_RULES, type PlanRule } from '../model/index.js';
import { canonicalInstant, EXPIRES_AT_HINT } from '../schemas/expiry.js';
import * as z from '../schemas/zod.js';
import { type ConstructLike, isConstruct } from './constructs.js';

/** An RFC 3339 string or a Date, as the canonical instant (UTC with milliseconds). */
const expiresAtSchema = z.pipe(
  z.union([z.string(), z.date()]),
  z.transform((value: string | Date, ctx) => {
    const instant =
      value instanceof Date
        ? Number.isNaN(value.getTime())
          ? undefined
          : canonicalInstant(value.toISOString())
        : canonicalInstant(value);
    if (instant === undefined) {
      ctx.issues.push({
        code: 'custom',
        message: `must be ${EXPIRES_AT_HINT}, or a valid Date`,
        input: value,
      });
      return z.NEVER;
    }
    return instant;
  }),
);

export const acknowledgementSchema = z.strictObject({
  rule: z.enum(PLAN_RULES),
  reason: z.string().check(z.trim(), z.minLength(1)),
  /** Only the finding at this address (`type.logicalId`); by default every finding of the rule at or under the construct. */
  address: z.optional(z.string().check(z.minLength(1))),
  /**
   * When the acknowledgement stops holding: an RFC 3339 string or a Date. From then on, synth fails on the
   * finding again and says which acknowledgement expired and when.
   */
  expiresAt: z.optional(expiresAtSchema),
});

export type AcknowledgementInput = z.input<typeof acknowledgementSchema>;

export interface CodeAcknowledgement {
  rule: PlanRule;
  reason: string;
  address?: string | undefined;
  /** Canonical UTC (2026-12-31T18:00:00.000Z): the acknowledgement holds while synth runs before it. */
  expiresAt?: string | undefined;
  /** The path of the construct it was written on: it covers that construct and everything under it. */
  constructPath: string;
}

const ACKNOWLEDGEMENTS = Symbol.for('tfgate/cdktf/acknowledgements');

type Carrier = ConstructLike & { [ACKNOWLEDGEMENTS]?: CodeAcknowledgement[] };

export function addAcknowledgement(construct: unknown, input: unknown): CodeAcknowledgement {
  if (!isConstruct(construct)) {
    throw new UsageError(
      'invalid_acknowledgement',
      'ConformanceAspect.acknowledge: the first argument must be a construct (a resource, a construct or a stack)',
    );
  }
  const parsed = acknowledgementSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(options)';
    const why =
      field === 'reason'
        ? 'a reason is required: say why this finding may ship, for the audit record'
        : field === 'rule'
          ? `rule must be one of ${PLAN_RULES.join(', ')}`
          : field === 'expiresAt'
            ? `must be ${EXPIRES_AT_HINT}, or a valid Date`
            : issue.message;
    throw new UsageError(
      'invalid_acknowledgement',
      `ConformanceAspect.acknowledge(${JSON.stringify(construct.node.path)}): ${field}: ${why}`,
      {
        hint: "e.g. ConformanceAspect.acknowledge(queue, { rule: 'unsanctioned_creation', reason: 'ticket OPS-42' })",
      },
    );
  }
  const carrier = construct as Carrier;
  const { expiresAt, ...rest } = parsed.data;
  const acknowledgement: CodeAcknowledgement = {
    ...rest,
    ...(expiresAt === undefined ? {} : { expiresAt }),
    constructPath: construct.node.path,
  };
  if (!Object.hasOwn(carrier, ACKNOWLEDGEMENTS)) {
    Object.defineProperty(carrier, ACKNOWLEDGEMENTS, { value: [], enumerable: false });
  }
  carrier[ACKNOWLEDGEMENTS]!.push(acknowledgement);
  return acknowledgement;
}

export function acknowledgementsOn(construct: ConstructLike): readonly CodeAcknowledgement[] {
  return (construct as Carrier)[ACKNOWLEDGEMENTS] ?? [];
}

/** Every acknowledgement that can cover a finding in `stack`: on the stack, under it, or above it. */
export function acknowledgementsFor(stack: ConstructLike): CodeAcknowledgement[] {
  const found: CodeAcknowledgement[] = [];
  for (let scope = stack.node.scope; scope; scope = scope.node.scope)
    found.push(...acknowledgementsOn(scope));
  for (const construct of stack.node.findAll()) found.push(...acknowledgementsOn(construct));
  return found;
}

function covers(scopePath: string, path: string): boolean {
  return scopePath === '' || path === scopePath || path.startsWith(`${scopePath}/`);
}

/** The most specific acknowledgement holding at `nowMs` that covers a finding, and else the most specific expired one. */
export function matchAcknowledgement(
  acknowledgements: readonly CodeAcknowledgement[],
  finding: { rule: string; address: string; constructPath: string },
  nowMs: number = Date.now(),
): { holding?: CodeAcknowledgement; expired?: CodeAcknowledgement } {
  const holding = mostSpecific(
    acknowledgements.filter((ack) => !acknowledgementExpired(ack.expiresAt, nowMs)),
    finding,
  );
  if (holding) return { holding };
  const expired = mostSpecific(
    acknowledgements.filter((ack) => acknowledgementExpired(ack.expiresAt, nowMs)),
    finding,
  );
  return expired ? { expired } : {};
}

function mostSpecific(
  acknowledgements: readonly CodeAcknowledgement[],
  finding: { rule: string; address: string; constructPath: string },
): CodeAcknowledgement | undefined {
  let best: CodeAcknowledgement | undefined;
  for (const ack of acknowledgements) {
    if (ack.rule !== finding.rule) continue;
    if (ack.address !== undefined && ack.address !== finding.address) continue;
    if (!covers(ack.constructPath, finding.constructPath)) continue;
    if (!best || ack.constructPath.length > best.constructPath.length) best = ack;
  }
  return best;
}
