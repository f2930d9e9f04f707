// Data for the dashboard's browser tests and screenshots: a package with an open finding and a proposed
// change awaiting approval, another whose values are hostile (script tags, attribute breakers, javascript:
// URLs) in its name, a resource address, an acknowledgement reason and a key name.
import { design, stateJson } from '../service/fixtures.js';
import { api, CONFORMANCE, createAccountKey, createApprovedPackage, type TestService } from './service.js';

export const HOSTILE = `"'><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">javascript:alert(1)`;
/** A resource name that breaks out of attributes and elements if it is not escaped. */
export const HOSTILE_NAME = `q"'><script>window.__pwned=3</script><img src=x onerror=window.__pwned=4>`;

export interface Seeded {
  /** Approved, one open high finding (an unsanctioned queue), a proposed change awaiting approval. */
  payments: string;
  /** Approved; its name, a finding's address, an acknowledgement and a key name are hostile. */
  hostile: string;
  /** A key with compliance:read only. */
  readerKey: string;
}

const yaml = { 'Content-Type': 'application/yaml' };

export async function seedDashboard(svc: TestService): Promise<Seeded> {
  const payments = await createApprovedPackage(svc, design('payments'), {
    observedState: stateJson([
      { type: 'aws_db_instance', name: 'ledger' },
      { type: 'terraform_data', name: 'config' },
      { type: 'aws_sqs_queue', name: 'extra' },
    ]),
  });
  await api(svc, 'POST', `${CONFORMANCE}/packages/${payments}/drift-checks`);
  // Gate calls and plan evaluations fill the decisions page and make the audit log several pages long.
  for (let i = 0; i < 12; i++) await api(svc, 'POST', `${CONFORMANCE}/packages/${payments}/gate`);
  const proposed = design(payments)
    .replace('[relational_database, generic_data]', '[relational_database, generic_data, queue]')
    .replace(
      'depends_on: ["aws_db_instance.ledger"]',
      'depends_on: ["aws_db_instance.ledger", "aws_sqs_queue.extra"]',
    );
  await api(svc, 'PUT', `${CONFORMANCE}/packages/${payments}`, { body: proposed, headers: yaml });

  const hostileDesign = design('hostile').replace(
    'name: Payments platform',
    `name: ${JSON.stringify(HOSTILE)}`,
  );
  const hostile = await createApprovedPackage(svc, hostileDesign, {
    packageId: 'hostile',
    observedState: stateJson([
      { type: 'aws_db_instance', name: 'ledger' },
      { type: 'aws_sqs_queue', name: HOSTILE_NAME },
      { type: 'aws_sqs_queue', name: 'second' },
    ]),
  });
  await api(svc, 'POST', `${CONFORMANCE}/packages/${hostile}/drift-checks`);
  const findings = await api<{ findings: Array<{ id: string; address: string }> }>(
    svc,
    'GET',
    `${CONFORMANCE}/packages/${hostile}/findings?status=open`,
  );
  const target = findings.body.findings.find((f) => f.address.includes('second'))!;
  await api(svc, 'POST', `${CONFORMANCE}/packages/${hostile}/findings/${target.id}/acknowledge`, {
    body: { reason: HOSTILE },
  });
  await createAccountKey(svc, 'default', 'enterprise', ['compliance:read'], HOSTILE);
  const reader = await createAccountKey(svc, 'default', 'enterprise', ['compliance:read'], 'auditor');
  return { payments, hostile, readerKey: reader.key };
}
