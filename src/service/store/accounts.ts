// Accounts and their plans (admin writes). A plan change clears the key cache: keys carry their account's plan.
import type { AccountPlan, Principal } from '../types.js';
import { actorEntry, insertAudit } from './audit.js';
import { type StoreCaches, writeKeys } from './caches.js';
import { ConflictError, NotFoundError } from './errors.js';
import { isUniqueViolation } from './rows.js';
import type { SqlClient } from './sql.js';

export const accountNotFound = (account: string) =>
  new NotFoundError({ code: 'account_not_found', account }, `account "${account}" was not found`);

export class AccountRepository {
  constructor(
    private readonly db: SqlClient,
    private readonly caches: StoreCaches,
  ) {}

  /** Throws ConflictError `account_exists` when the name is taken. */
  create(name: string, plan: AccountPlan, actor: Principal): Promise<{ name: string; plan: AccountPlan }> {
    return writeKeys(this.db, this.caches, async (tx) => {
      try {
        await tx.query('INSERT INTO accounts (name, plan) VALUES ($1, $2)', [name, plan]);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        throw new ConflictError(
          { code: 'account_exists', account: name },
          `account "${name}" already exists`,
        );
      }
      await insertAudit(tx, [actorEntry(actor, 'account_created', { name, plan })]);
      return { name, plan };
    });
  }

  /** Throws NotFoundError `account_not_found`. */
  updatePlan(
    name: string,
    plan: AccountPlan,
    actor: Principal,
  ): Promise<{ name: string; plan: AccountPlan }> {
    return writeKeys(this.db, this.caches, async (tx) => {
      const { rows } = await tx.query<{ plan: AccountPlan }>(
        'UPDATE accounts SET plan = $2 WHERE name = $1 RETURNING plan',
        [name, plan],
      );
      if (rows.length === 0) throw accountNotFound(name);
      await insertAudit(tx, [actorEntry(actor, 'account_plan_changed', { name, plan })]);
      return { name, plan };
    });
  }
}
