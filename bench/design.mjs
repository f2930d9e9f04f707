// The approved design the plan benchmarks use: the generated plan's kinds sanctioned except iam (so
// about 3% of changes are unsanctioned creations), and capabilities whose globs catch some deletions.
export const DESIGN = {
  package_id: 'bench',
  name: 'Benchmark package',
  sanctioned_kinds: [
    'object_storage',
    'queue',
    'topic',
    'relational_database',
    'serverless_function',
    'network',
    'firewall',
    'kubernetes_workload',
  ],
  capabilities: [
    { name: 'ledger', depends_on: ['aws_db_instance.*', 'module.svc_7.*'] },
    { name: 'content', depends_on: ['aws_s3_bucket.r1*', 'google_storage_bucket.r2*'] },
    { name: 'messaging', depends_on: ['module.svc_3*.aws_sqs_queue.*'] },
  ],
  catalog: { google_pubsub_topic: 'queue' },
};
