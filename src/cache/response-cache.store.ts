import type SqliteDatabase from 'better-sqlite3'
import type { Store } from '../store/database.ts'
import type { CacheEntryRow } from '../store/schema.ts'

export const findCacheEntry = (store: Store, key: string) => store.db.selectFrom('cache_entries').selectAll().where('key', '=', key).executeTakeFirst()

/** Writes or replaces an entry; on SQLite in the group commit (one transaction with the other writes of the moment). */
export async function upsertCacheEntry(store: Store, row: CacheEntryRow): Promise<void> {
  if (store.groupCommit) {
    await store.groupCommit.run((raw) => upsertStatement(raw).run(row))
    return
  }
  await store.db
    .insertInto('cache_entries')
    .values(row)
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: row.value, stored_at: row.stored_at, expires_at: row.expires_at }))
    .execute()
}

/** Drops the entries expired by `now`; returns how many. */
export async function deleteExpiredCacheEntries(store: Store, now: number): Promise<number> {
  const result = await store.db.deleteFrom('cache_entries').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}

const upserts = new WeakMap<SqliteDatabase.Database, SqliteDatabase.Statement>()
function upsertStatement(raw: SqliteDatabase.Database): SqliteDatabase.Statement {
  let statement = upserts.get(raw)
  if (!statement) {
    statement = raw.prepare(
      'insert into cache_entries (key, value, stored_at, expires_at) values (@key, @value, @stored_at, @expires_at) on conflict (key) do update set value = excluded.value, stored_at = excluded.stored_at, expires_at = excluded.expires_at',
    )
    upserts.set(raw, statement)
  }
  return statement
}
