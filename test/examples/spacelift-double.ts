// SpaceliftRunDouble: a double of a Spacelift run (Spacelift cannot run here), built from Spacelift's documents:
// - runtime configuration: .spacelift/config.yml with the keys of the YAML reference (and the workflow tool
//   page's terraform_workflow_tool); stack settings replace stack_defaults, lists are not merged;
// - phases: each phase's before_ hooks, command and after_ hooks run in one shell session; a failing command
//   ends the phase (and the run); the plan goes to spacelift.plan;
// - plan policy: after planning, `<key>.custom.spacelift.json` objects at the project root become
//   input.third_party_metadata.custom.<key>, beside the plan's resource changes and run metadata (the plan
//   policy's documented data input); the policy is evaluated with the real opa; any deny fails the run;
// - confirmation: the run resumes in a new container: a fresh shell with the runner image's tools and the
//   stack's environment, nothing a hook did to the previous container's environment.
// The custom workflow tool (.spacelift/workflow.yml) replaces init, plan, showPlan and apply.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const hooks = z.array(z.string()).optional();
/** The YAML reference's stack settings; anything else is refused, as a typo would silently do nothing. */
const stackSettingsSchema = z.strictObject({
  after_apply: hooks,
  after_destroy: hooks,
  after_init: hooks,
  after_perform: hooks,
  after_plan: hooks,
  after_run: hooks,
  before_apply: hooks,
  before_destroy: hooks,
  before_init: hooks,
  before_perform: hooks,
  before_plan: hooks,
  environment: z.record(z.string(), z.string()).optional(),
  project_root: z.string().optional(),
  runner_image: z.string().optional(),
  terraform_version: z.string().optional(),
  terraform_workflow_tool: z.enum(['OPEN_TOFU', 'TERRAFORM_FOSS', 'CUSTOM']).optional(),
});
export type StackSettings = z.infer<typeof stackSettingsSchema>;

export const runtimeConfigSchema = z.strictObject({
  version: z.union([z.string(), z.number()]).optional(),
  stack_defaults: stackSettingsSchema.optional(),
  stacks: z.record(z.string(), stackSettingsSchema).optional(),
});

/** The workflow tool page's required commands. */
export const WORKFLOW_COMMANDS = [
  'init',
  'workspaceSelect',
  'workspaceNew',
  'plan',
  'showState',
  'showPlan',
  'getOutputs',
  'apply',
  'destroy',
] as const;
const workflowSchema = z.strictObject(
  Object.fromEntries(WORKFLOW_COMMANDS.map((c) => [c, z.string().regex(/\S/)])) as Record<
    (typeof WORKFLOW_COMMANDS)[number],
    z.ZodString
  >,
);

/** The plan policy's documented data input, the parts this double fills in. */
const planPolicyInputSchema = z.object({
  spacelift: z.object({
    run: z.object({
      id: z.string(),
      branch: z.string(),
      type: z.string(),
      state: z.string(),
      changes: z.array(
        z.object({
          action: z.enum(['added', 'changed', 'deleted']),
          entity: z.object({ address: z.string(), name: z.string(), type: z.string() }),
          phase: z.enum(['plan', 'apply']),
        }),
      ),
      runtime_config: z.object({
        before_init: z.array(z.string()),
        project_root: z.string(),
        runner_image: z.string(),
      }),
    }),
    stack: z.object({
      name: z.string(),
      branch: z.string(),
      labels: z.array(z.string()),
      autodeploy: z.boolean(),
    }),
  }),
  terraform: z.object({
    resource_changes: z.array(
      z.object({
        address: z.string(),
        type: z.string(),
        name: z.string(),
        provider_name: z.string(),
        change: z.object({ actions: z.array(z.string()) }),
      }),
    ),
    terraform_version: z.string(),
  }),
  third_party_metadata: z.object({ custom: z.record(z.string(), z.record(z.string(), z.unknown())) }),
});
export type PlanPolicyInput = z.infer<typeof planPolicyInputSchema>;

/** The subset of Go templates workflow.yml uses: {{ .X }}, {{ if not .X }}…{{ end }}, {{ range .X }}…{{ . }}…{{ end }}. */
export function renderGoTemplate(template: string, data: Record<string, unknown>): string {
  let out = template.replace(
    /\{\{ range \.(\w+) \}\}([\s\S]*?)\{\{ end \}\}/g,
    (_m, key: string, body: string) =>
      ((data[key] as unknown[] | undefined) ?? [])
        .map((item) => body.replace(/\{\{ \. \}\}/g, String(item)))
        .join(''),
  );
  out = out.replace(/\{\{ if not \.(\w+) \}\}([\s\S]*?)\{\{ end \}\}/g, (_m, key: string, body: string) =>
    data[key] ? '' : body,
  );
  out = out.replace(/\{\{ \.(\w+) \}\}/g, (_m, key: string) => String(data[key]));
  if (out.includes('{{')) throw new Error(`template construct not handled: ${out}`);
  return out;
}

export interface PhaseResult {
  phase: string;
  exitCode: number;
  /** stdout and stderr, interleaved, as the run log shows them. */
  log: string;
}

export interface RunResult {
  /** FINISHED, FAILED (a phase failed), or FAILED by the plan policy (deny). */
  state: 'UNCONFIRMED' | 'FINISHED' | 'FAILED';
  phases: PhaseResult[];
  policyInput?: PlanPolicyInput;
  deny: string[];
  warn: string[];
}

export interface RunOptions {
  /** The environment of attached contexts (secrets included), besides the runtime configuration's. */
  contextEnv: Record<string, string>;
  /** The runner image's tools: PATH in every container of the run. */
  imagePath: string;
  /** Plan policies attached to the stack (Rego files). */
  planPolicies: string[];
  /** Runs between planning and the confirmed apply (e.g. the design changes while the run waits). */
  beforeConfirm?: () => Promise<void>;
  /** Stop at UNCONFIRMED. */
  noConfirm?: boolean;
  /** Extra environment for the run's containers (e.g. terraform's CLI config). */
  baseEnv?: Record<string, string>;
}

export class SpaceliftRunDouble {
  readonly settings: StackSettings;
  private readonly workflow?: Record<string, string>;

  /** `repoDir` holds .spacelift/config.yml; `workspace` is the run's copy of the project root. */
  constructor(
    readonly repoDir: string,
    readonly stackId: string,
    readonly workspace: string,
  ) {
    const config = runtimeConfigSchema.parse(
      parseYaml(readFileSync(join(repoDir, '.spacelift', 'config.yml'), 'utf8')),
    );
    const stack = config.stacks?.[stackId];
    if (!stack) throw new Error(`.spacelift/config.yml has no stack ${stackId}`);
    this.settings = { ...config.stack_defaults, ...stack };
    if (this.settings.terraform_workflow_tool === 'CUSTOM') {
      const file = join(workspace, '.spacelift', 'workflow.yml');
      if (!existsSync(file)) throw new Error('Workflow file not found: .spacelift/workflow.yml');
      this.workflow = workflowSchema.parse(parseYaml(readFileSync(file, 'utf8')));
    }
  }

  private command(name: 'init' | 'plan' | 'showPlan' | 'apply'): string {
    const data = {
      PlanFileName: 'spacelift.plan',
      Lock: true,
      Refresh: true,
      Targets: [],
      WorkspaceName: 'default',
    };
    if (this.workflow) return renderGoTemplate(this.workflow[name]!, data);
    const builtin = {
      init: 'terraform init -input=false',
      plan: 'terraform plan -input=false -lock=true -out=spacelift.plan',
      showPlan: 'terraform show -json "spacelift.plan"',
      apply: 'terraform apply -auto-approve -input=false "spacelift.plan"',
    };
    return builtin[name];
  }

  /** One container: a fresh `sh` with the image's PATH, the stack environment and the contexts. */
  private async shell(script: string, options: RunOptions) {
    const env = {
      ...options.baseEnv,
      PATH: options.imagePath,
      HOME: this.workspace,
      ...options.contextEnv,
      ...this.settings.environment,
    };
    return execa('sh', ['-e', '-c', script], {
      cwd: this.workspace,
      env,
      extendEnv: false,
      reject: false,
      all: true,
    });
  }

  private async phase(name: 'init' | 'plan' | 'apply', options: RunOptions): Promise<PhaseResult> {
    const s = this.settings;
    const [before, after] = {
      init: [s.before_init, s.after_init],
      plan: [s.before_plan, s.after_plan],
      apply: [s.before_apply, s.after_apply],
    }[name];
    const script = [...(before ?? []), this.command(name), ...(after ?? [])].join('\n');
    const result = await this.shell(script, options);
    return { phase: name, exitCode: result.exitCode ?? -1, log: String(result.all) };
  }

  async run(options: RunOptions): Promise<RunResult> {
    const phases: PhaseResult[] = [];
    const failed = (): RunResult => ({ state: 'FAILED', phases, deny: [], warn: [] });
    // Initializing and planning share a container.
    for (const name of ['init', 'plan'] as const) {
      phases.push(await this.phase(name, options));
      if (phases.at(-1)!.exitCode !== 0) return failed();
    }
    const policyInput = await this.planPolicyInput(options);
    const { deny, warn } = await this.evaluatePlanPolicies(policyInput, options.planPolicies);
    if (deny.length > 0) return { state: 'FAILED', phases, policyInput, deny, warn };
    if (options.noConfirm) return { state: 'UNCONFIRMED', phases, policyInput, deny, warn };
    await options.beforeConfirm?.();
    // Confirmed: the apply phase runs in a new container.
    phases.push(await this.phase('apply', options));
    const state = phases.at(-1)!.exitCode === 0 ? 'FINISHED' : 'FAILED';
    return { state, phases, policyInput, deny, warn };
  }

  private async planPolicyInput(options: RunOptions): Promise<PlanPolicyInput> {
    const show = await this.shell(this.command('showPlan'), options);
    if (show.exitCode !== 0) throw new Error(`showPlan failed: ${show.all}`);
    const plan = JSON.parse(show.stdout) as {
      terraform_version: string;
      resource_changes?: Array<{
        address: string;
        type: string;
        name: string;
        provider_name: string;
        change: { actions: string[] };
      }>;
    };
    const resourceChanges = (plan.resource_changes ?? []).map((c) => ({
      address: c.address,
      type: c.type,
      name: c.name,
      provider_name: c.provider_name,
      change: { actions: c.change.actions },
    }));
    const custom: Record<string, Record<string, unknown>> = {};
    for (const file of readdirSync(this.workspace)) {
      const key = /^(.+)\.custom\.spacelift\.json$/.exec(file)?.[1];
      if (!key) continue;
      const value = JSON.parse(readFileSync(join(this.workspace, file), 'utf8')) as unknown;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new Error(`${file} is not a JSON object`);
      }
      custom[key] = value as Record<string, unknown>;
    }
    const actionOf = (actions: string[]) =>
      actions.includes('delete') ? 'deleted' : actions.includes('create') ? 'added' : 'changed';
    return planPolicyInputSchema.parse({
      spacelift: {
        run: {
          id: `01${randomUUID().replaceAll('-', '').slice(0, 24).toUpperCase()}`,
          branch: 'main',
          type: 'TRACKED',
          state: 'PLANNING',
          changes: resourceChanges
            .filter((c) => !c.change.actions.every((a) => a === 'no-op' || a === 'read'))
            .map((c) => ({
              action: actionOf(c.change.actions),
              entity: { address: c.address, name: c.name, type: c.type },
              phase: 'plan',
            })),
          runtime_config: {
            before_init: this.settings.before_init ?? [],
            project_root: this.settings.project_root ?? '',
            runner_image: this.settings.runner_image ?? 'public.ecr.aws/spacelift/runner-terraform:latest',
          },
        },
        stack: { name: this.stackId, branch: 'main', labels: [], autodeploy: false },
      },
      terraform: { resource_changes: resourceChanges, terraform_version: plan.terraform_version },
      third_party_metadata: { custom },
    });
  }

  /** Every attached plan policy, with the real opa: their deny and warn sets, merged. */
  async evaluatePlanPolicies(
    input: unknown,
    policies: string[],
  ): Promise<{ deny: string[]; warn: string[] }> {
    const dir = mkdtempSync(join(tmpdir(), 'spacelift-policy-'));
    try {
      const inputFile = join(dir, 'input.json');
      writeFileSync(inputFile, JSON.stringify(input));
      const deny: string[] = [];
      const warn: string[] = [];
      for (const policy of policies) {
        const result = await execa('opa', [
          'eval',
          '--format',
          'json',
          '-d',
          policy,
          '-i',
          inputFile,
          'data.spacelift',
        ]);
        const value = (
          JSON.parse(result.stdout) as {
            result: Array<{ expressions: Array<{ value: { deny?: string[]; warn?: string[] } }> }>;
          }
        ).result[0]!.expressions[0]!.value;
        deny.push(...(value.deny ?? []));
        warn.push(...(value.warn ?? []));
      }
      return { deny: deny.sort(), warn: warn.sort() };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
