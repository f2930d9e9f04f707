// The store's read caches, named, with their invalidation in one place. Embedded store only: one process
// owns the data dir (it is locked), so every write goes through this process and clears what it changed.
// PostgreSQL: other instances write too, so every read goes to the database (a pass-through cache).
import type { DriftFinding } from '../../model/index.js';
import type { KeyRecord, PackageRecord } from './rows.js';
import type { SqlClient, SqlExecutor } from './sql.js';

export interface ReadCache<K, V> {
  readonly name: string;
  /**
   * The cached value (at once, no promise: the gate's hot path), or `load()`'s; a load that a concurrent
   * clear() made stale is used, not kept.
   */
  read(key: K, load: () => Promise<V>): V | Promise<V>;
  clear(): void;
}

const MAX_ENTRIES = 10_000;

class MemoryCache<K, V> implements ReadCache<K, V> {
  readonly #entries = new Map<K, V>();
  #generation = 0;

  constructor(readonly name: string) {}

  read(key: K, load: () => Promise<V>): V | Promise<V> {
    if (this.#entries.has(key)) return this.#entries.get(key) as V;
    return this.#load(key, load);
  }

  async #load(key: K, load: () => Promise<V>): Promise<V> {
    const generation = this.#generation;
    const value = await load();
    if (generation === this.#generation) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}

class PassThrough<K, V> implements ReadCache<K, V> {
  constructor(readonly name: string) {}
  read(_key: K, load: () => Promise<V>): Promise<V> {
    return load();
  }
  clear(): void {}
}

export interface StoreCaches {
  /** Whether reads are cached (embedded) or always asked of the database (PostgreSQL). */
  readonly enabled: boolean;
  /** API keys by hash, with their account's plan. Cleared after every key or account write. */
  readonly keys: ReadCache<string, KeyRecord | null>;
  /** Packages by account and id. Cleared after every package or findings write. */
  readonly packages: ReadCache<string, PackageRecord | null>;
  /** The gate's unresolved findings, by package pk. Cleared with the packages. */
  readonly unresolvedFindings: ReadCache<number, DriftFinding[]>;
}

export function createCaches(kind: SqlClient['kind']): StoreCaches {
  const make = kind === 'embedded' ? MemoryCache : PassThrough;
  return {
    enabled: kind === 'embedded',
    keys: new make('keys'),
    packages: new make('packages'),
    unresolvedFindings: new make('unresolved findings'),
  };
}

/** Runs a write transaction, then clears `stale` (committed or not): what it wrote may be cached there. */
async function writeAndClear<T>(
  db: SqlClient,
  stale: ReadonlyArray<{ clear(): void }>,
  fn: (tx: SqlExecutor) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction(fn);
  } finally {
    for (const cache of stale) cache.clear();
  }
}

/** A transaction that writes keys or accounts: the key cache is cleared after it. */
export function writeKeys<T>(
  db: SqlClient,
  caches: StoreCaches,
  fn: (tx: SqlExecutor) => Promise<T>,
): Promise<T> {
  return writeAndClear(db, [caches.keys], fn);
}

/** A transaction that writes packages or findings: their caches are cleared after it. */
export function writeState<T>(
  db: SqlClient,
  caches: StoreCaches,
  fn: (tx: SqlExecutor) => Promise<T>,
): Promise<T> {
  return writeAndClear(db, [caches.packages, caches.unresolvedFindings], fn);
}
