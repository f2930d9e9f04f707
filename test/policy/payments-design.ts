// The design the engine tests judge plans against: two capabilities sharing the ledger database.
import type { Design } from '../../src/design/index.js';

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
