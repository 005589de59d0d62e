import { chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs'
import { dirname, resolve as resolvePath } from 'node:path'
import { Worker } from 'node:worker_threads'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteDialect, type Transaction } from 'kysely'
import type pg from 'pg'
import { srcFile } from '../paths.ts'
import { type GroupCommit, groupCommit } from './group-commit.ts'
import { migrateToLatest } from './migrations.ts'
import type { Tables } from './schema.ts'
import { loadStorageSecret } from './sealed.ts'

export type Dialect = 'sqlite' | 'postgres'
export type Db = Kysely<Tables>
export type Tx = Transaction<Tables>

/** The storage port: one Kysely instance over either engine, plus what differs between them. */
export interface Store {
  db: Db
  dialect: Dialect
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  /** SQLite only: synchronous work on the raw connection, many callers per commit (group-commit.ts). */
  groupCommit?: GroupCommit
  /** PostgreSQL only: connections of their own for job lease renewals (jobs/jobs.store.ts). */
  leases?: Db
  ping(): Promise<void>
  close(): Promise<void>
}

/** pg, loaded only on PostgreSQL (about 14 MB resident a SQLite server would carry for nothing). */
export async function loadPg(): Promise<typeof pg> {
  const { default: driver } = await import('pg')
  // BIGINT (int8) and NUMERIC come back from pg as strings; every BIGINT here is epoch ms or
  // millicredits, far inside Number's safe range.
  driver.types.setTypeParser(20, (v) => Number.parseInt(v, 10))
  return driver
}

/**
 * Which database a URL names, for people: the SQLite file's absolute path, or PostgreSQL's host,
 * port and database (never the user or password). Shown by the server's banner, by every operator
 * command before it writes, and in the server's hint for a well-formed key it does not know: the
 * usual cause is an operator command run without the server's TRAWL_DATABASE_URL.
 */
export function describeDatabase(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length)
    return `SQLite ${path === ':memory:' ? path : resolvePath(path)}`
  }
  try {
    const u = new URL(databaseUrl)
    return `PostgreSQL ${u.host}${u.pathname === '/' ? '' : u.pathname}`
  } catch {
    return 'PostgreSQL (an unparsable URL)'
  }
}

export async function openStore(databaseUrl: string, opts: { migrate?: boolean } = {}): Promise<Store> {
  const store = databaseUrl.startsWith('sqlite:') ? openSqlite(databaseUrl.slice('sqlite:'.length)) : openPostgres(databaseUrl, await loadPg())
  if (opts.migrate !== false) await migrateToLatest(store.db, store.dialect)
  // Before any transaction can need it (store/sealed.ts); a database not migrated yet has no table for it.
  await loadStorageSecret(store).catch((err: unknown) => {
    if (opts.migrate !== false) throw err
  })
  return store
}

function openSqlite(path: string): Store {
  if (path !== ':memory:') privateFiles(path)
  const database = new SqliteDatabase(path)
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
  // Several processes (serve + `trawl worker`) may share the file: wait for the lock, don't fail.
  database.pragma('busy_timeout = 5000')
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) })
  const checkpointer = path === ':memory:' ? null : checkpointerOnceWritten(database, path)
  return {
    db,
    dialect: 'sqlite',
    transaction: (fn) => db.transaction().execute(fn),
    groupCommit: groupCommit(database, (fn) => db.connection().execute(fn)),
    ping: async () => {
      database.prepare('select 1').get()
    },
    close: async () => {
      await checkpointer?.stop()
      await db.destroy() // the last connection to close checkpoints the rest
    },
  }
}

/**
 * The database holds password and key hashes, sessions and webhook secrets: its folder is made
 * 0700 when Trawl creates it (an existing folder is left as the operator made it), and the
 * database file 0600, created so before SQLite opens it, since SQLite gives the -wal and -shm files
 * it creates the database file's permissions. Files of an existing installation are narrowed to
 * 0600 at every start (where the process may change them).
 */
/**
 * A whole, consistent copy of the SQLite database of `databaseUrl` in the new file `file` while
 * servers keep writing (`trawl backup`): SQLite's online backup with every page in one step, so one
 * read transaction that the servers' writes never restart, holding every write committed before it
 * began, those still in the -wal file included. Nothing is migrated. The copy is made 0600 (it
 * holds password and key hashes and the storage key) before SQLite fills it.
 */
export async function backupSqlite(databaseUrl: string, file: string): Promise<void> {
  if (!databaseUrl.startsWith('sqlite:')) {
    throw new Error(`backup copies a SQLite database; ${describeDatabase(databaseUrl)} is backed up with pg_dump -Fc (docs/self-hosting.md)`)
  }
  const path = databaseUrl.slice('sqlite:'.length)
  if (!existsSync(path)) throw new Error(`no database at ${path}: give the server's TRAWL_DATABASE_URL`)
  if (existsSync(file)) throw new Error(`${file} exists: a backup is written to a new file`)
  const db = new SqliteDatabase(path, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    closeSync(openSync(file, 'wx', 0o600))
    await db.backup(file, { progress: () => 0x7fffffff }).catch((err: unknown) => {
      rmSync(file, { force: true })
      throw err
    })
  } finally {
    db.close()
  }
}

function privateFiles(path: string) {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  closeSync(openSync(path, 'a', 0o600))
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
    } catch {
      // Not there (no -wal yet), or another user's file: SQLite reports what it cannot open.
    }
  }
}

/** A quarter of SQLite's automatic checkpoint (1000 pages of 4 KB): the thread is up well before it. */
const CHECKPOINTER_AT_WAL_BYTES = 1 << 20

/**
 * The checkpointer's thread (about 15 MB) starts once the WAL holds 1 MB, checked every second:
 * a server that writes little never needs it, and until then SQLite's own automatic checkpoint
 * stays on.
 */
function checkpointerOnceWritten(database: SqliteDatabase.Database, path: string) {
  let checkpointer: ReturnType<typeof startCheckpointer> = null
  const timer = setInterval(() => {
    let walBytes = 0
    try {
      walBytes = statSync(`${path}-wal`).size
    } catch {
      return // no WAL file (yet)
    }
    if (walBytes < CHECKPOINTER_AT_WAL_BYTES) return
    clearInterval(timer)
    checkpointer = startCheckpointer(database, path)
  }, 1000)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await checkpointer?.stop()
    },
  }
}

/**
 * SQLite's automatic checkpoint runs inside the COMMIT that crosses 1000 WAL pages, on the thread
 * that committed: 20-40 ms with the event loop stopped, the whole p99 of a busy server. A thread
 * with a connection of its own checkpoints instead (wal-checkpoint.worker.cjs); if it cannot start
 * or dies, the connection goes back to checkpointing itself.
 */
function startCheckpointer(database: SqliteDatabase.Database, path: string) {
  let worker: Worker
  try {
    worker = new Worker(srcFile('store/wal-checkpoint.worker.cjs'), { workerData: { path, intervalMs: 200 } })
  } catch {
    return null
  }
  worker.unref() // a short CLI command is not kept alive by it
  database.pragma('wal_autocheckpoint = 0')
  let running = true
  const fallBack = () => {
    if (running && database.open) database.pragma('wal_autocheckpoint = 1000')
    running = false
  }
  worker.on('error', fallBack)
  worker.on('exit', fallBack)
  return {
    async stop() {
      if (!running) return
      running = false
      const exited = new Promise((resolve) => worker.once('exit', resolve))
      worker.ref() // the process waits for it now: an unref'd worker would let it exit mid-close
      worker.postMessage('stop')
      await exited
    },
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

function openPostgres(url: string, driver: typeof pg): Store {
  // connectionTimeoutMillis also bounds the wait for a free client under a burst: long enough to
  // queue through one (calls on one account take its row lock in turn), short enough never to hang.
  const pool = new driver.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 30_000 })
  pool.on('error', () => {}) // an idle client's broken connection is replaced by the pool; /healthz reports outages
  // A client checked out of the pool (a transaction between statements) has no error listener of
  // the pool's: without this one, PostgreSQL restarting ("terminating connection due to
  // administrator command") would crash the process. Its next query fails instead (503), and the
  // pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) })
  // A worker whose pool is busy (transactions queued on one account's row lock) must still renew
  // its leases, or other workers take its jobs over and run them twice. Opened on first use only;
  // a renewal never waits long on a row lock (jobs/jobs.store.ts), so a few connections serve them all.
  const leasePool = new driver.Pool({ connectionString: url, max: 3, connectionTimeoutMillis: 30_000, options: '-c lock_timeout=1000' })
  leasePool.on('error', () => {})
  leasePool.on('connect', (client) => client.on('error', () => {}))
  const leases = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: leasePool }) })
  return {
    db,
    dialect: 'postgres',
    transaction: (fn) => db.transaction().execute(fn),
    leases,
    ping: async () => {
      await pool.query('select 1')
    },
    close: async () => {
      await leases.destroy()
      await db.destroy()
    },
  }
}
