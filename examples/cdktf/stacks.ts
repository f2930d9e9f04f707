// The example's infrastructure: a plannable stack (terraform_data, built into terraform) and a
// synth-only stack of typed cloud resources.
import { DataResource, TerraformStack } from 'cdktn';
import { Construct } from 'constructs';
import { ConformanceAspect } from 'tfgate/cdktn';
import { S3Bucket, SqsQueue } from './resources.js';

export interface PlatformOptions {
  /** Drop the ledger, which the design's "ledger" capability depends on: synth fails. */
  readonly retireLedger?: boolean;
}

/** terraform_data only: `terraform plan` works on its synthesized JSON with no provider download. */
export class PlatformStack extends TerraformStack {
  constructor(scope: Construct, id: string, options: PlatformOptions = {}) {
    super(scope, id);
    if (!options.retireLedger) new DataResource(this, 'ledger', { input: { owner: 'payments' } });
    new ApiService(this, 'api');
  }
}

/** A nested construct: its resources get hashed logical ids, and the aspect still finds their addresses. */
class ApiService extends Construct {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new DataResource(this, 'config', { input: { replicas: 2 } });
    new DataResource(this, 'release', { count: 2, input: { channel: 'stable' } });
  }
}

export interface StorageOptions {
  /** Add an SQS queue: the design does not sanction queues, so synth fails. */
  readonly auditQueue?: boolean;
  /** Acknowledge the queue with this reason: synth passes, and the reason is recorded in cdk.tf.json. */
  readonly acknowledgeAuditQueue?: string;
}

/** Typed cloud resources: synthesized and judged, but not planned here (that needs the AWS provider). */
export class StorageStack extends TerraformStack {
  constructor(scope: Construct, id: string, options: StorageOptions = {}) {
    super(scope, id);
    new S3Bucket(this, 'assets', { bucket: 'example-assets' });
    if (options.auditQueue) {
      const queue = new SqsQueue(new Construct(this, 'audit'), 'queue', { name: 'audit-events' });
      if (options.acknowledgeAuditQueue) {
        ConformanceAspect.acknowledge(queue, {
          rule: 'unsanctioned_creation',
          reason: options.acknowledgeAuditQueue,
        });
      }
    }
  }
}
