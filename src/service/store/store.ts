// The store: one repository per record kind over the SqlClient seam, the audit log, and the read caches
// (caches.ts) they share. Every write runs in a transaction; errors are the store's own (errors.ts).
import { AccountRepository } from './accounts.js';
import { ApiKeyRepository } from './api-keys.js';
import { AuditLog } from './audit.js';
import { BundleRepository } from './bundles.js';
import { createCaches, type StoreCaches } from './caches.js';
import { DesignRevisionRepository } from './design-revisions.js';
import { DriftCheckRepository } from './drift-checks.js';
import { FindingRepository } from './findings.js';
import { migrate } from './migrations.js';
import { ObservedStateRepository } from './observed-state.js';
import { PackageOverviewRepository } from './package-overview.js';
import { PackageRepository } from './packages.js';
import { PlanAcknowledgementRepository } from './plan-acknowledgements.js';
import { RunTaskRepository } from './run-tasks.js';
import { SettingsRepository } from './settings.js';
import type { SqlClient } from './sql.js';
import { StateSourceRepository } from './state-sources.js';
import { UiSessionRepository } from './ui-sessions.js';

export class Store {
  readonly caches: StoreCaches;
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly packages: PackageRepository;
  readonly observedState: ObservedStateRepository;
  readonly findings: FindingRepository;
  readonly planAcknowledgements: PlanAcknowledgementRepository;
  readonly driftChecks: DriftCheckRepository;
  readonly bundles: BundleRepository;
  readonly settings: SettingsRepository;
  readonly runTasks: RunTaskRepository;
  readonly stateSources: StateSourceRepository;
  readonly audit: AuditLog;
  readonly designRevisions: DesignRevisionRepository;
  readonly uiSessions: UiSessionRepository;
  readonly packageOverview: PackageOverviewRepository;

  constructor(readonly db: SqlClient) {
    this.caches = createCaches(db.kind);
    this.accounts = new AccountRepository(db, this.caches);
    this.packages = new PackageRepository(db, this.caches);
    this.apiKeys = new ApiKeyRepository(db, this.caches, this.packages);
    this.observedState = new ObservedStateRepository(db, this.caches);
    this.findings = new FindingRepository(db, this.caches);
    this.planAcknowledgements = new PlanAcknowledgementRepository(db);
    this.driftChecks = new DriftCheckRepository(db, this.caches);
    this.bundles = new BundleRepository(db);
    this.settings = new SettingsRepository(db);
    this.runTasks = new RunTaskRepository(db);
    this.stateSources = new StateSourceRepository(db);
    this.audit = new AuditLog(db);
    this.designRevisions = new DesignRevisionRepository(db);
    this.uiSessions = new UiSessionRepository(db);
    this.packageOverview = new PackageOverviewRepository(db);
  }

  get kind(): SqlClient['kind'] {
    return this.db.kind;
  }

  migrate(): Promise<number[]> {
    return migrate(this.db);
  }

  async close(): Promise<void> {
    // Rows still queued belong to requests that are waiting for them: commit them first.
    await this.audit.drain();
    await this.db.close();
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}
