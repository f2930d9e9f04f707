// Schema migrations, shared by the embedded (SQLite) and the PostgreSQL backend: one numbered list, each
// written in PostgreSQL's dialect and run on SQLite through dialect.ts. Where the DDL must differ (triggers),
// the migration carries both variants side by side (`postgres`, `sqlite`), run after the shared `sql`.
// Append only: never edit a released migration, add the next one.
import type { SqlClient } from './sql.js';

export interface Migration {
  version: number;
  name: string;
  /** Both stores. */
  sql: string;
  /** PostgreSQL only, after `sql`. */
  postgres?: string;
  /** SQLite only, after `sql`: the same effect as `postgres`. */
  sqlite?: string;
}

export const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
CREATE TABLE accounts (
  name text PRIMARY KEY,
  plan text NOT NULL CHECK (plan IN ('starter', 'team', 'large', 'enterprise')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account text NOT NULL REFERENCES accounts(name),
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  scopes jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE TABLE packages (
  pk serial PRIMARY KEY,
  account text NOT NULL REFERENCES accounts(name),
  package_id text NOT NULL,
  design jsonb NOT NULL,
  revision text NOT NULL,
  approved_revision text,
  approved_at timestamptz,
  approved_by text,
  last_check_at timestamptz,
  last_check_revision text,
  next_check_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account, package_id)
);
CREATE INDEX packages_next_check ON packages (next_check_at);
CREATE TABLE observed_state (
  package_pk integer PRIMARY KEY REFERENCES packages(pk),
  resources jsonb NOT NULL,
  resource_count integer NOT NULL,
  terraform_version text,
  pushed_at timestamptz NOT NULL DEFAULT now(),
  pushed_by text NOT NULL
);
CREATE TABLE drift_checks (
  id serial PRIMARY KEY,
  package_pk integer NOT NULL REFERENCES packages(pk),
  revision text NOT NULL,
  trigger text NOT NULL CHECK (trigger IN ('scheduled', 'refresh', 'manual', 'gate')),
  instance text NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL DEFAULT now(),
  detected integer NOT NULL
);
CREATE INDEX drift_checks_package ON drift_checks (package_pk, finished_at);
CREATE TABLE findings (
  package_pk integer NOT NULL REFERENCES packages(pk),
  id text NOT NULL,
  rule text NOT NULL,
  severity text NOT NULL,
  address text NOT NULL,
  type text,
  kind text,
  capability text,
  message text NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved')),
  first_seen_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  resolved_at timestamptz,
  ack_by text,
  ack_account text,
  ack_at timestamptz,
  ack_reason text,
  PRIMARY KEY (package_pk, id)
);
CREATE INDEX findings_status ON findings (package_pk, status);
CREATE TABLE acknowledgements (
  id serial PRIMARY KEY,
  package_pk integer NOT NULL REFERENCES packages(pk),
  finding_id text NOT NULL,
  account text NOT NULL,
  key_id text NOT NULL,
  key_name text NOT NULL,
  reason text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE audit (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  account text NOT NULL,
  package_pk integer REFERENCES packages(pk),
  package_id text,
  event text NOT NULL,
  key_id text,
  key_name text,
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_package ON audit (package_pk, id);
CREATE TABLE bundles (
  package_pk integer NOT NULL REFERENCES packages(pk),
  revision text NOT NULL,
  bytes bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (package_pk, revision)
);
CREATE TABLE settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`,
    postgres: `
CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only';
END
$$;
CREATE TRIGGER audit_no_rewrite BEFORE UPDATE OR DELETE ON audit
  FOR EACH ROW EXECUTE FUNCTION audit_append_only();
`,
    sqlite: `
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
`,
  },
  {
    version: 2,
    name: 'acknowledgements that expire; plan acknowledgements',
    sql: `
ALTER TABLE findings ADD COLUMN ack_expires_at timestamptz;
ALTER TABLE acknowledgements ADD COLUMN expires_at timestamptz;
CREATE TABLE plan_acknowledgements (
  id bigserial PRIMARY KEY,
  package_pk integer NOT NULL REFERENCES packages(pk),
  finding_id text NOT NULL,
  rule text NOT NULL,
  address text NOT NULL,
  reason text NOT NULL,
  expires_at timestamptz,
  account text NOT NULL,
  key_id text NOT NULL,
  key_name text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  expiry_audited_at timestamptz,
  revoked_at timestamptz,
  revoked_by text,
  revoked_account text
);
CREATE UNIQUE INDEX plan_acknowledgements_active ON plan_acknowledgements (package_pk, finding_id)
  WHERE revoked_at IS NULL;
`,
  },
  {
    version: 3,
    name: 'state sources: where a package state lives, and which state each check judged',
    sql: `
CREATE TABLE state_sources (
  package_pk integer PRIMARY KEY REFERENCES packages(pk),
  type text NOT NULL,
  config jsonb NOT NULL,
  fallback text NOT NULL CHECK (fallback IN ('none', 'pushed')),
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by text NOT NULL
);
ALTER TABLE packages ADD COLUMN last_check_state jsonb;
ALTER TABLE drift_checks ADD COLUMN state jsonb;
`,
  },
  {
    version: 4,
    name: 'design revisions',
    // Every pushed design is kept, so a proposed revision can be shown against the approved one. Existing
    // packages keep their current design; an approved design that a newer push replaced was never stored.
    sql: `
CREATE TABLE design_revisions (
  package_pk integer NOT NULL REFERENCES packages(pk),
  revision text NOT NULL,
  design jsonb NOT NULL,
  pushed_at timestamptz NOT NULL DEFAULT now(),
  pushed_by text,
  PRIMARY KEY (package_pk, revision)
);
INSERT INTO design_revisions (package_pk, revision, design, pushed_at)
  SELECT pk, revision, design, updated_at FROM packages;
`,
  },
  {
    version: 5,
    name: 'run tasks (HCP Terraform / Terraform Enterprise)',
    sql: `
CREATE TABLE run_task_configs (
  package_pk integer PRIMARY KEY REFERENCES packages(pk),
  hmac_key_sealed text NOT NULL,
  min_severity text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE run_tasks (
  task_result_id text PRIMARY KEY,
  package_pk integer NOT NULL REFERENCES packages(pk),
  payload_sealed text NOT NULL,
  stage text NOT NULL,
  run_id text NOT NULL,
  workspace_name text NOT NULL,
  organization_name text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'done', 'abandoned')),
  result_status text,
  attempts integer NOT NULL DEFAULT 0,
  claimed_by text,
  lease_until timestamptz,
  received_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX run_tasks_pending ON run_tasks (lease_until) WHERE status = 'pending';
`,
  },
  {
    version: 6,
    name: 'dashboard sessions',
    // A dashboard sign-in: the cookie's hash, the key it acts as (a revoked key ends it) and its CSRF token.
    sql: `
CREATE TABLE ui_sessions (
  token_hash text PRIMARY KEY,
  key_id text NOT NULL REFERENCES api_keys(id),
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX ui_sessions_expiry ON ui_sessions (expires_at);
`,
  },
];

// Any fixed number: serialises migrations when several instances start at once on one PostgreSQL.
const MIGRATION_LOCK = 7_315_001;

export async function migrate(db: SqlClient): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const ran: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await tx.exec(migration.sql);
      const variant = db.kind === 'postgres' ? migration.postgres : migration.sqlite;
      if (variant) await tx.exec(variant);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      ran.push(migration.version);
    }
    return ran;
  });
}
