// The service route of the PlanEvaluator seam: the plan is streamed as the request body, never held whole.

import { NoDecisionError } from '../errors/index.js';
import { markDetailsUnavailable, type PlanEvaluator } from '../model/evaluator.js';
import { type EvaluationResult, emptyCounts, type Severity } from '../model/index.js';
import type { PlanSource } from '../plan/index.js';
import { packagePath, ServiceClient } from './client.js';
import type { ClientFlags } from './config.js';
import { evaluationContradiction } from './contradictions.js';
import type { RequestSpec } from './http.js';
import { lenientEvaluationResultSchema } from './schemas.js';

export class RemoteEvaluator implements PlanEvaluator {
  readonly description: string;
  readonly #client: ServiceClient;
  readonly #packageId: string;

  constructor(client: ServiceClient, packageId: string) {
    this.#client = client;
    this.#packageId = packageId;
    this.description = `service ${client.baseUrl} (package ${packageId})`;
  }

  async evaluate(source: PlanSource, minSeverity: Severity): Promise<EvaluationResult> {
    const transport = this.#client.transport;
    const spec: RequestSpec = {
      operation: 'evaluation',
      method: 'POST',
      path: packagePath(this.#packageId, 'evaluate/terraform'),
      packageId: this.#packageId,
      query: { min_severity: minSeverity, fail_status: 'true' },
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      // Each attempt re-opens the source, so a retry re-streams the plan from its first byte.
      body: { open: () => source.open(), reopenable: source.reopenable, description: source.description },
    };
    const res = await transport.send(spec);
    if (res.status !== 200 && res.status !== 409) throw await transport.failure(spec, res);
    const json = await transport.readJson(res);
    if (res.status === 409) {
      const error = transport.contractError(json);
      if (error && error.code !== 'evaluation_blocked') throw await transport.failure(spec, res, json);
    }
    const parsed = lenientEvaluationResultSchema.safeParse(json);
    // With fail_status=true, 200 is a pass and 409 a block. A body with another decision than its status (a
    // 409 saying "pass", a 200 saying "block"), about another package or threshold, or with a decision its
    // own findings contradict, answers some other question: no decision, as for the gate.
    const decision = res.status === 200 ? 'pass' : 'block';
    const contradiction = !parsed.success
      ? undefined
      : parsed.data.decision !== decision
        ? `its body says "${parsed.data.decision}", not the "${decision}" its status means`
        : evaluationContradiction(parsed.data, { packageId: this.#packageId, minSeverity });
    if (contradiction) {
      throw new NoDecisionError(
        'contradictory_response',
        `the service answered the evaluation for package "${this.#packageId}" with HTTP ${res.status} but ${contradiction}`,
        {
          hint: 'the service is inconsistent; nothing was applied (fail closed). Report it to the service operators.',
        },
      );
    }
    if (res.status === 409) {
      if (parsed.success) return parsed.data;
      // Blocked, by status: fail closed with what we know.
      return markDetailsUnavailable(
        {
          package_id: this.#packageId,
          decision: 'block',
          min_severity: minSeverity,
          findings: [],
          counts: emptyCounts(),
        },
        'the service answered HTTP 409 without a body tfgate could read, so no findings are shown',
      );
    }
    // The interface does not say that findings make the status an error, so a 200 is only a pass
    // when its body says so: an unreadable body is no decision.
    if (!parsed.success) {
      throw new NoDecisionError(
        'unreadable_evaluation',
        `the service at ${this.#client.baseUrl} answered the evaluation with HTTP 200 but a body that is not the contract's evaluation result`,
        {
          hint: 'check --base-url points at the tfgate service (not a proxy or login page); nothing was applied (fail closed)',
        },
      );
    }
    return parsed.data;
  }
}

/** The service route for `check`/`plan`/`apply`: `--package` with `--base-url`/TFGATE_BASE_URL and TFGATE_API_KEY. */
export async function openRemoteEvaluator(
  packageId: string,
  flags: ClientFlags = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<RemoteEvaluator> {
  return new RemoteEvaluator(await ServiceClient.fromOptions(flags, env), packageId);
}
