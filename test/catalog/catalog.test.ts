import { describe, expect, it } from 'vitest';
import {
  BUILTIN_CATALOG,
  BUILTIN_KINDS,
  BUILTIN_TYPES_BY_KIND,
  effectiveCatalog,
  knownKinds,
} from '../../src/catalog/index.js';

describe('the built-in catalog', () => {
  it('maps each type to exactly one kind', () => {
    const all = Object.values(BUILTIN_TYPES_BY_KIND).flat();
    const duplicates = all.filter((type, index) => all.indexOf(type) !== index);
    expect(duplicates).toEqual([]);
    expect(Object.keys(BUILTIN_CATALOG)).toHaveLength(all.length);
  });

  it('covers the common AWS, Google Cloud, Azure and Kubernetes types, a few hundred in all', () => {
    const types = Object.keys(BUILTIN_CATALOG);
    expect(types.length).toBeGreaterThan(300);
    for (const prefix of ['aws_', 'google_', 'azurerm_', 'kubernetes_']) {
      expect({ prefix, count: types.filter((t) => t.startsWith(prefix)).length }).toMatchObject({
        prefix,
        count: expect.any(Number),
      });
      expect(types.filter((t) => t.startsWith(prefix)).length).toBeGreaterThan(
        prefix === 'kubernetes_' ? 40 : 100,
      );
    }
    expect(BUILTIN_CATALOG).toMatchObject({
      aws_s3_bucket: 'object_storage',
      google_storage_bucket: 'object_storage',
      azurerm_storage_account: 'object_storage',
      aws_sqs_queue: 'queue',
      aws_sns_topic: 'topic',
      google_pubsub_topic: 'topic',
      aws_db_instance: 'relational_database',
      google_sql_database_instance: 'relational_database',
      azurerm_postgresql_flexible_server: 'relational_database',
      aws_dynamodb_table: 'nosql_database',
      aws_elasticache_cluster: 'cache',
      aws_instance: 'compute_instance',
      aws_eks_cluster: 'container_cluster',
      google_container_cluster: 'container_cluster',
      azurerm_kubernetes_cluster: 'container_cluster',
      kubernetes_deployment: 'kubernetes_workload',
      aws_lambda_function: 'serverless_function',
      aws_vpc: 'network',
      aws_lb: 'load_balancer',
      aws_route53_record: 'dns',
      aws_cloudfront_distribution: 'cdn',
      aws_iam_role: 'iam',
      aws_secretsmanager_secret: 'secret',
      aws_kms_key: 'key_management',
      aws_ecr_repository: 'container_registry',
      aws_cloudwatch_log_group: 'logging',
      aws_cloudwatch_metric_alarm: 'monitoring',
    });
  });

  it('uses every declared kind, and only declared kinds', () => {
    expect(new Set(Object.values(BUILTIN_CATALOG))).toEqual(new Set(BUILTIN_KINDS));
  });

  it('does not recognize terraform_data: a design maps it when it wants it judged', () => {
    expect(BUILTIN_CATALOG.terraform_data).toBeUndefined();
  });
});

describe('effectiveCatalog', () => {
  it("adds the design's types and overrides built-in ones, leaving the rest", () => {
    const catalog = effectiveCatalog({
      catalog: { terraform_data: 'generic_data', aws_s3_bucket: 'archive' },
    });
    expect(catalog.terraform_data).toBe('generic_data');
    expect(catalog.aws_s3_bucket).toBe('archive');
    expect(catalog.aws_sqs_queue).toBe('queue');
    expect(Object.keys(catalog)).toHaveLength(Object.keys(BUILTIN_CATALOG).length + 1);
  });

  it('is sorted by type, so data.json is deterministic', () => {
    const keys = Object.keys(effectiveCatalog({ catalog: { a_first: 'x', zz_last: 'y' } }));
    expect(keys).toEqual([...keys].sort());
  });

  it('never changes the built-in table', () => {
    effectiveCatalog({ catalog: { aws_s3_bucket: 'archive' } });
    expect(BUILTIN_CATALOG.aws_s3_bucket).toBe('object_storage');
  });

  it('knows the kinds a design introduces', () => {
    expect(knownKinds({ catalog: { terraform_data: 'generic_data' } }).has('generic_data')).toBe(true);
    expect(knownKinds({}).has('generic_data')).toBe(false);
  });
});
