// Small designs and observed states for the service tests, built as terraform show -json documents.

export const PAYMENTS_DESIGN = `package_id: payments
name: Payments platform
sanctioned_kinds: [relational_database, generic_data]
capabilities:
  - name: ledger
    depends_on: ["aws_db_instance.ledger"]
catalog:
  terraform_data: generic_data
  aws_db_instance: relational_database
  aws_sqs_queue: queue
`;

export function design(packageId: string): string {
  return PAYMENTS_DESIGN.replace('package_id: payments', `package_id: ${packageId}`);
}

interface Res {
  type: string;
  name: string;
}

/** `terraform show -json` on a state holding these resources (values included, as real states have). */
export function stateJson(resources: Res[]): string {
  return JSON.stringify({
    format_version: '1.0',
    terraform_version: '1.11.4',
    values: {
      root_module: {
        resources: resources.map((r) => ({
          address: `${r.type}.${r.name}`,
          mode: 'managed',
          type: r.type,
          name: r.name,
          provider_name: 'registry.terraform.io/hashicorp/aws',
          schema_version: 0,
          values: { id: `${r.name}-id`, password: 'hunter2-canary' },
          sensitive_values: {},
        })),
      },
    },
  });
}

export const DB: Res = { type: 'aws_db_instance', name: 'ledger' };
export const DATA: Res = { type: 'terraform_data', name: 'config' };
export const QUEUE: Res = { type: 'aws_sqs_queue', name: 'extra' };

/** One open high finding: an unsanctioned queue. */
export const STATE_WITH_QUEUE = stateJson([DB, DATA, QUEUE]);
/** Conforming. */
export const STATE_CLEAN = stateJson([DB, DATA]);
/** A high (queue) and a critical (the ledger's database is missing). */
export const STATE_HIGH_AND_CRITICAL = stateJson([DATA, QUEUE]);

/** A plan creating a queue (unsanctioned, high) and deleting the ledger database (critical). */
export function planJson(changes: Array<Res & { actions: string[] }>): string {
  return JSON.stringify({
    format_version: '1.2',
    terraform_version: '1.11.4',
    resource_changes: changes.map((c) => ({
      address: `${c.type}.${c.name}`,
      mode: 'managed',
      type: c.type,
      name: c.name,
      provider_name: 'registry.terraform.io/hashicorp/aws',
      change: { actions: c.actions, before: null, after: { secret: 'hunter2-canary' } },
    })),
  });
}

export const PLAN_BLOCKED = planJson([
  { ...QUEUE, actions: ['create'] },
  { ...DB, actions: ['delete'] },
  { ...DATA, actions: ['update'] },
]);
export const PLAN_CLEAN = planJson([{ ...DATA, actions: ['create'] }]);
