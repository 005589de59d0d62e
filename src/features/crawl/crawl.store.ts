import type SqliteDatabase from 'better-sqlite3'
import { sql } from 'kysely'
import { LEASE_COLUMNS, recentJobs } from '../../jobs/jobs.store.ts'
import type { Db, Store, Tx } from '../../store/database.ts'
import type { CrawlRow } from '../../store/schema.ts'

/** SQL for crawls and the pages they paid for. Rules live in crawl.service.ts and crawl.worker.ts. */

export const insertCrawl = (db: Db | Tx, row: CrawlRow) => db.insertInto('crawls').values(row).execute()

export const findCrawl = (db: Db | Tx, accountId: string, id: string) =>
  db.selectFrom('crawls').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()

export const findCrawlById = (db: Db | Tx, id: string) => db.selectFrom('crawls').selectAll().where('id', '=', id).executeTakeFirst()

/** The account's queued and running crawls, oldest first (at most 20 can be: the per-account cap). */
export const listActiveCrawls = (db: Db | Tx, accountId: string) =>
  db
    .selectFrom('crawls')
    .select(['id', 'request'])
    .where('account_id', '=', accountId)
    .where('status', 'in', ['queued', 'running'])
    .orderBy('created_at')
    .execute()

/** Every column of a list row: all but the result. */
const CRAWL_LIST_COLUMNS = [
  'id',
  'account_id',
  'key_id',
  'request_id',
  'request',
  ...LEASE_COLUMNS,
  'cancel_requested',
  'progress',
  'error',
  'credits_reserved_mc',
  'credits_used_mc',
  'webhook_url',
  'webhook_delivery_id',
  'created_at',
  'started_at',
  'completed_at',
  'expires_at',
] as const

/** The account's crawls, newest first, without their (large) result: a list shows progress, the detail call the result. */
export const recentCrawls = (db: Db, accountId: string, limit: number) => recentJobs(db, 'crawls', accountId, limit, CRAWL_LIST_COLUMNS)

export const updateCrawl = (db: Db | Tx, id: string, patch: Partial<CrawlRow>) => db.updateTable('crawls').set(patch).where('id', '=', id).execute()

/** The cancel flag alone: what a running crawl polls (DELETE may have set it from any process). */
export async function readCancelRequested(db: Db | Tx, id: string): Promise<number | undefined> {
  const row = await db.selectFrom('crawls').select('cancel_requested').where('id', '=', id).executeTakeFirst()
  return row?.cancel_requested
}

/** Progress of a running crawl, only while this worker holds its lease (a stale worker writes nothing). */
export const saveLeasedProgress = (db: Db | Tx, id: string, workerId: string, progress: string) =>
  db.updateTable('crawls').set({ progress }).where('id', '=', id).where('lease_owner', '=', workerId).execute()

/**
 * Back to the queue, due now, with its progress cleared (it restarts from the beginning), fenced on
 * the lease like saveLeasedProgress.
 */
export const requeueLeasedCrawl = (db: Db | Tx, id: string, workerId: string, now: number) =>
  db
    .updateTable('crawls')
    .set({ status: 'queued', run_at: now, lease_owner: null, lease_expires_at: null, progress: null })
    .where('id', '=', id)
    .where('lease_owner', '=', workerId)
    .execute()

/** A read page as a crawl stores it: its JSON as the result lists it, and its place there. */
export interface StoredCrawlPage {
  json: string
  seq: number
}

/**
 * Records a read page and pays for it; false when this crawl already paid for it (a restarted
 * crawl: the page is replaced, not charged again) or its reservation is spent or the crawl has
 * ended (a worker that lost its lease reading on: nothing is kept, the ended crawl's refund stands).
 * On SQLite the statements join the group commit (one transaction for every page, debit and
 * request of the moment, store/group-commit.ts) instead of a transaction each.
 */
export async function chargeCrawlPage(store: Store, crawlId: string, urlKey: string, mc: number, page: StoredCrawlPage): Promise<boolean> {
  if (store.groupCommit) {
    return store.groupCommit.run((raw) => {
      const sql = crawlPageStatements(raw)
      if (sql.insert.run(crawlId, urlKey, mc, page.json, page.seq).changes === 0) {
        sql.replace.run(page.json, page.seq, crawlId, urlKey)
        return false
      }
      if (sql.charge.run(mc, crawlId, mc).changes === 0) {
        sql.remove.run(crawlId, urlKey)
        return false
      }
      return true
    })
  }
  return store.transaction((tx) => chargeCrawlPageIn(tx, crawlId, urlKey, mc, page))
}

async function chargeCrawlPageIn(tx: Tx, crawlId: string, urlKey: string, mc: number, page: StoredCrawlPage): Promise<boolean> {
  // ON CONFLICT, not a read first: a worker whose lease expired may still be reading the same page
  // as the one that took the crawl over, and the second insert must not fail the crawl.
  const inserted = await tx
    .insertInto('crawl_pages')
    .values({ crawl_id: crawlId, url_key: urlKey, charged_mc: mc, page: page.json, seq: page.seq })
    .onConflict((oc) => oc.columns(['crawl_id', 'url_key']).doNothing())
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
    await tx.updateTable('crawl_pages').set({ page: page.json, seq: page.seq }).where('crawl_id', '=', crawlId).where('url_key', '=', urlKey).execute()
    return false
  }
  // Never past the reservation, even when a stale worker and the new owner read different pages.
  const charged = await tx
    .updateTable('crawls')
    .set((eb) => ({ credits_used_mc: eb('credits_used_mc', '+', mc) }))
    .where('id', '=', crawlId)
    .where('status', '=', 'running')
    .where((eb) => eb(eb('credits_used_mc', '+', mc), '<=', eb.ref('credits_reserved_mc')))
    .executeTakeFirst()
  if (Number(charged.numUpdatedRows) === 0) {
    await tx.deleteFrom('crawl_pages').where('crawl_id', '=', crawlId).where('url_key', '=', urlKey).execute()
    return false
  }
  return true
}

/**
 * A crawl's stored pages in result order, as the UTF-8 bytes of their JSON, `size` a query:
 * GET /v1/crawl/{id} streams a large result (tens of MB) instead of holding it whole, and each
 * query is short (keyset on the order index). Bytes, not text: a page goes to the socket as
 * stored, never decoded into a string and encoded again (11 MB of a 1,000-page crawl took 40-60 ms
 * and most of the garbage of a poll as strings).
 */
export async function* crawlPageBatches(store: Store, crawlId: string, size = 64): AsyncGenerator<Buffer[]> {
  const pageBytes = store.dialect === 'sqlite' ? sql<Buffer>`cast(page as blob)` : sql<Buffer>`convert_to(page, 'UTF8')`
  let after: { seq: number; urlKey: string } | null = null
  for (;;) {
    const from: typeof after = after
    const rows: { page: Buffer; seq: number | null; url_key: string }[] = await store.db
      .selectFrom('crawl_pages')
      .select([pageBytes.as('page'), 'seq', 'url_key'])
      .where('crawl_id', '=', crawlId)
      .where('page', 'is not', null)
      .$if(from !== null, (q) => q.where((eb) => eb.or([eb('seq', '>', from!.seq), eb.and([eb('seq', '=', from!.seq), eb('url_key', '>', from!.urlKey)])])))
      .orderBy('seq')
      .orderBy('url_key')
      .limit(size)
      .execute()
    if (rows.length > 0) yield rows.map((r) => r.page)
    if (rows.length < size) return
    const last = rows[rows.length - 1]!
    after = { seq: last.seq ?? 0, urlKey: last.url_key }
  }
}

/** A crawl's stored pages (JSON), in result order, all at once. */
export async function crawlPagesJson(store: Store, crawlId: string): Promise<string[]> {
  const pages: string[] = []
  for await (const batch of crawlPageBatches(store, crawlId)) for (const page of batch) pages.push(page.toString('utf8'))
  return pages
}

/** The statements of chargeCrawlPageIn, prepared once per SQLite connection. */
const preparedCrawlPages = new WeakMap<SqliteDatabase.Database, ReturnType<typeof prepareCrawlPages>>()
const prepareCrawlPages = (raw: SqliteDatabase.Database) => ({
  insert: raw.prepare('insert into crawl_pages (crawl_id, url_key, charged_mc, page, seq) values (?, ?, ?, ?, ?) on conflict (crawl_id, url_key) do nothing'),
  replace: raw.prepare('update crawl_pages set page = ?, seq = ? where crawl_id = ? and url_key = ?'),
  charge: raw.prepare(
    "update crawls set credits_used_mc = credits_used_mc + ? where id = ? and status = 'running' and credits_used_mc + ? <= credits_reserved_mc",
  ),
  remove: raw.prepare('delete from crawl_pages where crawl_id = ? and url_key = ?'),
})
function crawlPageStatements(raw: SqliteDatabase.Database) {
  let sql = preparedCrawlPages.get(raw)
  if (!sql) {
    sql = prepareCrawlPages(raw)
    preparedCrawlPages.set(raw, sql)
  }
  return sql
}

/** Ended crawls past their 24 hours: removed with their page records. */
export async function pruneExpiredCrawls(db: Db, now: number): Promise<number> {
  const expired = await db.selectFrom('crawls').select('id').where('expires_at', '<', now).limit(500).execute()
  if (expired.length === 0) return 0
  const ids = expired.map((r) => r.id)
  await db.deleteFrom('crawl_pages').where('crawl_id', 'in', ids).execute()
  await db.deleteFrom('crawls').where('id', 'in', ids).execute()
  return ids.length
}
