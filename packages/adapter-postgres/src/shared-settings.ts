import type { Pool } from "pg";

/**
 * A value every instance on the database shares: the stored one, or `make()`'s when there
 * is none yet. Instances asking at once store one value between them (the first insert
 * wins, the others read it), so they agree whichever started first.
 */
export async function sharedSetting(pool: Pool, key: string, make: () => string): Promise<string> {
  await pool.query("INSERT INTO shared_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", [
    key,
    make(),
  ]);
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM shared_settings WHERE key = $1", [key]);
  const value = rows[0]?.value;
  if (value === undefined) throw new Error(`The shared setting ${key} could not be stored.`);
  return value;
}
