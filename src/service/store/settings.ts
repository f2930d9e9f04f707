// Instance-wide settings (the generated signing key on PostgreSQL), shared by every instance.
import type { SqlClient } from './sql.js';

export class SettingsRepository {
  constructor(private readonly db: SqlClient) {}

  async get(key: string): Promise<string | null> {
    const { rows } = await this.db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [
      key,
    ]);
    return rows[0]?.value ?? null;
  }

  /** First writer wins: returns the stored value, which is `value` only if nobody stored one before. */
  async putIfAbsent(key: string, value: string): Promise<string> {
    await this.db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
      key,
      value,
    ]);
    return (await this.get(key))!;
  }
}
