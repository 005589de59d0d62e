import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteDialect, type Transaction } from 'kysely'
import pg from 'pg'
import { migrateToLatest } from './migrations.ts'
import type { Tables } from './schema.ts'

export type Dialect = 'sqlite' | 'postgres'
export type Db = Kysely<Tables>
export type Tx = Transaction<Tables>

/** The storage port: one Kysely instance over either engine, plus what differs between them. */
export interface Store {
  db: Db
  dialect: Dialect
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  ping(): Promise<void>
  close(): Promise<void>
}

// BIGINT (int8) and NUMERIC come back from pg as strings; every BIGINT here is epoch ms or
// millicredits, far inside Number's safe range.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10))

export async function openStore(databaseUrl: string, opts: { migrate?: boolean } = {}): Promise<Store> {
  const store = databaseUrl.startsWith('sqlite:') ? openSqlite(databaseUrl.slice('sqlite:'.length)) : openPostgres(databaseUrl)
  if (opts.migrate !== false) await migrateToLatest(store.db, store.dialect)
  return store
}

function openSqlite(path: string): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const database = new SqliteDatabase(path)
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
  // Several processes (serve + `trawl worker`) may share the file: wait for the lock, don't fail.
  database.pragma('busy_timeout = 5000')
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) })
  return {
    db,
    dialect: 'sqlite',
    transaction: (fn) => db.transaction().execute(fn),
    ping: async () => {
      database.prepare('select 1').get()
    },
    close: () => db.destroy(),
  }
}

/**
 * Kysely prepares every query anew, and on a hot path (a billed call runs about ten statements)
 * better-sqlite3's prepare costs as much as running the statement. Kysely's queries are
 * parameterised, so the SQL texts are few and each prepared statement can be reused (safe because
 * every query runs to completion synchronously; nothing here uses Kysely's streaming `stream()`).
 */
function withStatementCache(database: SqliteDatabase.Database) {
  const statements = new Map<string, SqliteDatabase.Statement>()
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql)
      if (!statement) {
        statement = database.prepare(sql)
        if (statements.size < 1000) statements.set(sql, statement)
      }
      return statement
    },
  }
}

function openPostgres(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 })
  pool.on('error', () => {}) // an idle client's broken connection is replaced by the pool; /healthz reports outages
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) })
  return {
    db,
    dialect: 'postgres',
    transaction: (fn) => db.transaction().execute(fn),
    ping: async () => {
      await pool.query('select 1')
    },
    close: () => db.destroy(),
  }
}
