// The design the engine tests judge plans against: two capabilities sharing the ledger database.
import type { Design } from '../../src/design/index.js';
import type { PlanAction } from '../../src/model/index.js';

export const PAYMENTS_DESIGN: Design = {
  package_id: 'payments',
  name: 'Payments platform',
  sanctioned_kinds: ['object_storage', 'queue', 'relational_database'],
  capabilities: [
    { name: 'ledger', depends_on: ['aws_db_instance.ledger', 'module.queue.*'] },
    { name: 'settlement', depends_on: ['aws_db_instance.ledger', 'aws_s3_bucket.settlement'] },
  ],
  catalog: {},
};

/** Types for generated plans: two the design sanctions, an IAM user it does not, a vendor type no catalog knows. */
export const PAYMENTS_CHANGE_TYPES = ['aws_iam_user', 'aws_db_instance', 'aws_s3_bucket', 'vendor_thing'];

/** The action lists a plan's changes carry, one of each shape the rules tell apart. */
export const PLAN_ACTION_SHAPES: PlanAction[][] = [
  ['create'],
  ['delete'],
  ['update'],
  ['no-op'],
  ['delete', 'create'],
  ['read'],
];
