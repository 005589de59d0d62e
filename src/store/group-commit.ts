import type SqliteDatabase from 'better-sqlite3'

/** Synchronous work on the raw SQLite connection, run inside a group-commit transaction. */
export type SyncWork<T> = (raw: SqliteDatabase.Database, batch: Batch) => T

/** The batch a piece of work runs in: lets work of many callers share writes made once per batch. */
export interface Batch {
  /**
   * Runs `fn` once, after every piece of work of this batch and before its COMMIT, inside the
   * transaction (a second call with the same `key` is ignored). If it throws, the whole batch is
   * rolled back and every caller rejected.
   */
  beforeCommit(key: string, fn: () => void): void
}

export interface GroupCommit {
  /**
   * Queues `work` for the next batch and resolves with its result once the batch's transaction has
   * committed (or rejects with what `work` threw, or with the error that stopped the commit).
   */
  run<T>(work: SyncWork<T>, opts?: RunOptions): Promise<T>
  /** Transactions committed so far (tests and diagnostics: how many calls shared each commit). */
  readonly commits: number
}

export interface RunOptions {
  /**
   * The work writes with one statement at most, and changes nothing of its own (memory included)
   * before that statement succeeded. SQLite undoes a failed statement by itself, so such work
   * needs no savepoint: two statements fewer for each call (a cache hit's charge).
   */
  oneStatement?: boolean
}

interface Item {
  work: SyncWork<unknown>
  oneStatement: boolean
  resolve(value: unknown): void
  reject(err: unknown): void
}

/**
 * Group commit on SQLite: every piece of work queued in the same turn of the event loop (and while
 * the previous batch waited for the connection) runs in ONE `BEGIN IMMEDIATE … COMMIT`, each piece
 * in a savepoint of its own, and every caller is answered only after that COMMIT returned. So a
 * caller's rows are on disk before its promise settles (as durable as the connection's
 * `synchronous` setting makes any commit), a piece that throws rolls back its own rows and rejects
 * only its caller, and a COMMIT that fails rejects every caller of that batch with nothing written.
 *
 * One commit per batch instead of one per call is what makes the money path cheap under load: the
 * WAL append (and fsync), BEGIN and COMMIT are paid once for all calls that arrived together.
 *
 * `lock` runs the batch while holding Kysely's single-connection mutex, so a batch never lands in
 * the middle of a Kysely transaction that is awaiting between statements on the same connection.
 */
export function groupCommit(raw: SqliteDatabase.Database, lock: (fn: () => Promise<void>) => Promise<void>): GroupCommit {
  let queue: Item[] = []
  let scheduled = false
  let commits = 0

  // better-sqlite3 turns a transaction function called inside a transaction into a savepoint.
  const inSavepoint = raw.transaction((work: SyncWork<unknown>, batch: Batch) => work(raw, batch))
  const batch = raw.transaction((items: Item[]) => {
    const hooks = new Map<string, () => void>()
    const current: Batch = {
      beforeCommit: (key, fn) => {
        if (!hooks.has(key)) hooks.set(key, fn)
      },
    }
    const outcomes: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = []
    for (const item of items) {
      try {
        outcomes.push({ ok: true, value: item.oneStatement ? item.work(raw, current) : inSavepoint(item.work, current) })
      } catch (err) {
        // Some errors (disk full, I/O) make SQLite roll back the whole transaction: then nothing of
        // this batch can commit, and the callers after this one must not run in autocommit mode.
        if (!raw.inTransaction) throw err
        outcomes.push({ ok: false, err })
      }
    }
    for (const fn of hooks.values()) fn()
    return outcomes
  })

  const flush = async () => {
    try {
      await lock(async () => {
        // Taken now, not when the flush was scheduled: work queued while waiting for the lock joins.
        const items = queue
        queue = []
        scheduled = false
        let outcomes: ReturnType<typeof batch>
        try {
          outcomes = batch.immediate(items)
          commits++
        } catch (err) {
          for (const item of items) item.reject(err)
          return
        }
        outcomes.forEach((outcome, i) => {
          const item = items[i] as Item
          if (outcome.ok) item.resolve(outcome.value)
          else item.reject(outcome.err)
        })
      })
    } catch (err) {
      // The lock could not be taken (the database is closing): nothing ran.
      const items = queue
      queue = []
      scheduled = false
      for (const item of items) item.reject(err)
    }
  }

  return {
    run<T>(work: SyncWork<T>, opts?: RunOptions) {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, oneStatement: opts?.oneStatement === true, resolve: resolve as (value: unknown) => void, reject })
        if (!scheduled) {
          scheduled = true
          setImmediate(flush)
        }
      })
    },
    get commits() {
      return commits
    },
  }
}
