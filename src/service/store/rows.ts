// The records the store returns, and how a database row becomes one. Shared by every repository.
import type { Design } from '../../design/index.js';
import type { DriftFinding, DriftRule, FindingStatus, JudgedState, Severity } from '../../model/index.js';
import type { AccountPlan, Principal, Scope } from '../types.js';

export interface PackageRecord {
  pk: number;
  account: string;
  packageId: string;
  design: Design;
  revision: string;
  approvedRevision: string | null;
  approvedAt: string | null;
  approved: boolean;
  lastCheckAt: string | null;
  lastCheckRevision: string | null;
  /** Which state the last check judged (null before the first check since migration 3). */
  lastCheckState: JudgedState | null;
  createdAt: string;
  updatedAt: string;
}

/** An API key as stored: who it acts as, whether it is revoked, and its hash. */
export interface KeyRecord {
  principal: Principal;
  revoked: boolean;
  /** The stored hash, compared again in constant time by the caller. */
  hash: string;
}

export interface KeyLookup extends KeyRecord {
  /** The package the request names, when it names one and it belongs to the key's account. */
  pkg: PackageRecord | null;
}

export const iso = (value: unknown): string => new Date(value as string | Date).toISOString();
export const isoOrNull = (value: unknown): string | null => (value == null ? null : iso(value));

export const PACKAGE_COLUMNS =
  'p.pk, p.account, p.package_id, p.design, p.revision, p.approved_revision, p.approved_at, p.last_check_at, p.last_check_revision, p.last_check_state, p.created_at, p.updated_at';

export type PackageRow = {
  pk: number;
  account: string;
  package_id: string;
  design: Design;
  revision: string;
  approved_revision: string | null;
  approved_at: unknown;
  last_check_at: unknown;
  last_check_revision: string | null;
  last_check_state: JudgedState | null;
  created_at: unknown;
  updated_at: unknown;
};

export function toPackage(row: PackageRow): PackageRecord {
  return {
    pk: row.pk,
    account: row.account,
    packageId: row.package_id,
    design: row.design,
    revision: row.revision,
    approvedRevision: row.approved_revision,
    approvedAt: isoOrNull(row.approved_at),
    approved: row.approved_revision !== null && row.approved_revision === row.revision,
    lastCheckAt: isoOrNull(row.last_check_at),
    lastCheckRevision: row.last_check_revision,
    lastCheckState: row.last_check_state ?? null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const KEY_COLUMNS =
  'k.id AS key_id, k.name AS key_name, k.key_hash, k.scopes, k.revoked_at, a.name AS account_name, a.plan';

export type KeyRow = {
  key_id: string;
  key_name: string;
  key_hash: string;
  scopes: Scope[];
  revoked_at: unknown;
  account_name: string;
  plan: AccountPlan;
};

export function toKey(row: KeyRow): KeyRecord {
  return {
    principal: {
      keyId: row.key_id,
      keyName: row.key_name,
      account: row.account_name,
      plan: row.plan,
      scopes: row.scopes,
    },
    revoked: row.revoked_at != null,
    hash: row.key_hash,
  };
}

export const FINDING_COLUMNS =
  'id, rule, severity, address, type, kind, capability, message, status, first_seen_at, last_seen_at, resolved_at, ack_by, ack_account, ack_at, ack_reason, ack_expires_at';

export type FindingRow = {
  id: string;
  rule: DriftRule;
  severity: Severity;
  address: string;
  type: string | null;
  kind: string | null;
  capability: string | null;
  message: string;
  status: FindingStatus;
  first_seen_at: unknown;
  last_seen_at: unknown;
  resolved_at: unknown;
  ack_by: string | null;
  ack_account: string | null;
  ack_at: unknown;
  ack_reason: string | null;
  ack_expires_at: unknown;
};

export function toFinding(row: FindingRow): DriftFinding {
  const finding: DriftFinding = {
    id: row.id,
    rule: row.rule,
    severity: row.severity,
    address: row.address,
    message: row.message,
    status: row.status,
    first_seen_at: iso(row.first_seen_at),
    last_seen_at: iso(row.last_seen_at),
  };
  if (row.type !== null) finding.type = row.type;
  if (row.kind !== null) finding.kind = row.kind;
  if (row.capability !== null) finding.capability = row.capability;
  if (row.resolved_at != null) finding.resolved_at = iso(row.resolved_at);
  // An open finding keeps an acknowledgement only when it expired: the record of what no longer holds.
  if (
    row.ack_by !== null &&
    (row.status === 'acknowledged' || (row.status === 'open' && row.ack_expires_at != null))
  ) {
    finding.acknowledgement = {
      by: row.ack_by,
      account: row.ack_account ?? '',
      at: iso(row.ack_at),
      reason: row.ack_reason ?? '',
    };
    if (row.ack_expires_at != null) finding.acknowledgement.expires_at = iso(row.ack_expires_at);
  }
  return finding;
}

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
