// API keys: the bootstrap key, the hot path's key lookup, the admin writes (create, revoke) and the listing.
import type { Principal, Scope } from '../types.js';
import { accountNotFound } from './accounts.js';
import { actorEntry, insertAudit } from './audit.js';
import { type StoreCaches, writeKeys } from './caches.js';
import { NotFoundError } from './errors.js';
import type { PackageRepository } from './packages.js';
import {
  iso,
  isoOrNull,
  KEY_COLUMNS,
  type KeyLookup,
  type KeyRecord,
  type KeyRow,
  PACKAGE_COLUMNS,
  type PackageRow,
  toKey,
  toPackage,
} from './rows.js';
import type { SqlClient } from './sql.js';

export interface NewApiKey {
  id: string;
  name: string;
  hash: string;
  scopes: Scope[];
}

/** What revoking a key did: revoked it now, or found it revoked already (and when). */
export interface ApiKeyRevocation {
  id: string;
  account: string;
  revokedAt: string;
  alreadyRevoked: boolean;
}

/** A key as an admin sees it: never the key or its hash. */
export interface ApiKeyListing {
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt: string | null;
}

export class ApiKeyRepository {
  constructor(
    private readonly db: SqlClient,
    private readonly caches: StoreCaches,
    private readonly packages: PackageRepository,
  ) {}

  /** Whether any key exists, revoked or not (none: nobody can call the service until one is bootstrapped). */
  async any(): Promise<boolean> {
    const { rows } = await this.db.query('SELECT 1 AS found FROM api_keys LIMIT 1');
    return rows.length > 0;
  }

  /** Creates the `default` account and the bootstrap key, only while no key exists at all. */
  bootstrap(key: NewApiKey): Promise<boolean> {
    return writeKeys(this.db, this.caches, async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [7_315_002]);
      const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
      if ((rows[0]?.n ?? 0) > 0) return false;
      await tx.query(
        "INSERT INTO accounts (name, plan) VALUES ('default', 'enterprise') ON CONFLICT (name) DO NOTHING",
      );
      await tx.query(
        "INSERT INTO api_keys (id, account, name, key_hash, scopes) VALUES ($1, 'default', $2, $3, $4::jsonb)",
        [key.id, key.name, key.hash, JSON.stringify(key.scopes)],
      );
      await insertAudit(tx, [
        {
          event: 'api_key_created',
          account: 'default',
          details: { key_id: key.id, name: key.name, scopes: key.scopes, bootstrap: true },
        },
      ]);
      return true;
    });
  }

  /**
   * The hot path's one lookup: the key, its account and (when named) the package. The key is found by the
   * hash of what the caller sent; the hash is unique and indexed. Embedded: through the key and package
   * caches. PostgreSQL: one query.
   */
  async lookup(keyHash: string, packageId?: string): Promise<KeyLookup | null> {
    if (this.caches.enabled) {
      const key = await this.caches.keys.read(keyHash, () => this.#selectKey(keyHash));
      if (!key) return null;
      return {
        ...key,
        pkg: packageId === undefined ? null : await this.packages.get(key.principal.account, packageId),
      };
    }
    const { rows } = await this.db.query<KeyRow & Partial<PackageRow>>(
      `SELECT ${KEY_COLUMNS}, ${PACKAGE_COLUMNS}
         FROM api_keys k JOIN accounts a ON a.name = k.account
         LEFT JOIN packages p ON p.account = a.name AND p.package_id = $2
        WHERE k.key_hash = $1`,
      [keyHash, packageId ?? null],
    );
    const row = rows[0];
    if (!row) return null;
    return { ...toKey(row), pkg: row.pk == null ? null : toPackage(row as PackageRow) };
  }

  async #selectKey(keyHash: string): Promise<KeyRecord | null> {
    const { rows } = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.name = k.account WHERE k.key_hash = $1`,
      [keyHash],
    );
    return rows[0] ? toKey(rows[0]) : null;
  }

  /** Throws NotFoundError `account_not_found`. */
  async create(account: string, key: NewApiKey, actor: Principal): Promise<void> {
    await writeKeys(this.db, this.caches, async (tx) => {
      const { rows } = await tx.query('SELECT name FROM accounts WHERE name = $1', [account]);
      if (rows.length === 0) throw accountNotFound(account);
      await tx.query(
        'INSERT INTO api_keys (id, account, name, key_hash, scopes) VALUES ($1, $2, $3, $4, $5::jsonb)',
        [key.id, account, key.name, key.hash, JSON.stringify(key.scopes)],
      );
      const details = { key_id: key.id, account, name: key.name, scopes: key.scopes };
      await insertAudit(tx, [actorEntry(actor, 'api_key_created', details)]);
    });
  }

  /**
   * Revoke a key, at once, on every instance (the key is read on every call); with `account`, only a key of
   * that account (another's is not found). A key revoked before stays as it was, with its first revocation's
   * time, and no second audit entry: `alreadyRevoked` says so. Throws NotFoundError `api_key_not_found`.
   */
  revoke(id: string, actor: Principal, account?: string): Promise<ApiKeyRevocation> {
    return writeKeys(this.db, this.caches, async (tx) => {
      const { rows } = await tx.query<{ account: string; revoked_at: unknown }>(
        `SELECT account, revoked_at FROM api_keys WHERE id = $1${account === undefined ? '' : ' AND account = $2'} FOR UPDATE`,
        account === undefined ? [id] : [id, account],
      );
      const key = rows[0];
      if (!key) {
        throw new NotFoundError({ code: 'api_key_not_found', keyId: id }, `API key "${id}" was not found`);
      }
      if (key.revoked_at != null) {
        return { id, account: key.account, revokedAt: iso(key.revoked_at), alreadyRevoked: true };
      }
      const updated = await tx.query<{ revoked_at: unknown }>(
        'UPDATE api_keys SET revoked_at = now() WHERE id = $1 RETURNING revoked_at',
        [id],
      );
      await insertAudit(tx, [actorEntry(actor, 'api_key_revoked', { key_id: id, account: key.account })]);
      return { id, account: key.account, revokedAt: iso(updated.rows[0]!.revoked_at), alreadyRevoked: false };
    });
  }

  /** The account's keys, oldest first, revoked ones included. Throws NotFoundError `account_not_found`. */
  async list(account: string): Promise<ApiKeyListing[]> {
    const found = await this.db.query('SELECT name FROM accounts WHERE name = $1', [account]);
    if (found.rows.length === 0) throw accountNotFound(account);
    const { rows } = await this.db.query<{
      id: string;
      name: string;
      scopes: Scope[];
      created_at: unknown;
      revoked_at: unknown;
    }>(
      'SELECT id, name, scopes, created_at, revoked_at FROM api_keys WHERE account = $1 ORDER BY created_at, id',
      [account],
    );
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      scopes: row.scopes,
      createdAt: iso(row.created_at),
      revokedAt: isoOrNull(row.revoked_at),
    }));
  }
}
