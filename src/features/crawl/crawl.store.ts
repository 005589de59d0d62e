import type { Db, Tx } from '../../store/database.ts'
import type { CrawlRow } from '../../store/schema.ts'

/** SQL for crawls and the pages they paid for. Rules live in crawl.service.ts and crawl.worker.ts. */

export const insertCrawl = (db: Db | Tx, row: CrawlRow) => db.insertInto('crawls').values(row).execute()

export const findCrawl = (db: Db | Tx, accountId: string, id: string) =>
  db.selectFrom('crawls').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()

export const findCrawlById = (db: Db | Tx, id: string) => db.selectFrom('crawls').selectAll().where('id', '=', id).executeTakeFirst()

export async function countActiveCrawls(db: Db | Tx, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('crawls')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export const updateCrawl = (db: Db | Tx, id: string, patch: Partial<CrawlRow>) => db.updateTable('crawls').set(patch).where('id', '=', id).execute()

/** Records a page as paid for; false when this crawl already paid for it (a restarted crawl). */
export async function chargeCrawlPage(tx: Tx, crawlId: string, urlKey: string, mc: number): Promise<boolean> {
  // ON CONFLICT, not a read first: a worker whose lease expired may still be reading the same page
  // as the one that took the crawl over, and the second insert must not fail the crawl.
  const inserted = await tx
    .insertInto('crawl_pages')
    .values({ crawl_id: crawlId, url_key: urlKey, charged_mc: mc })
    .onConflict((oc) => oc.columns(['crawl_id', 'url_key']).doNothing())
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false
  // Never past the reservation, even when a stale worker and the new owner read different pages.
  const charged = await tx
    .updateTable('crawls')
    .set((eb) => ({ credits_used_mc: eb('credits_used_mc', '+', mc) }))
    .where('id', '=', crawlId)
    .where((eb) => eb(eb('credits_used_mc', '+', mc), '<=', eb.ref('credits_reserved_mc')))
    .executeTakeFirst()
  if (Number(charged.numUpdatedRows) === 0) {
    await tx.deleteFrom('crawl_pages').where('crawl_id', '=', crawlId).where('url_key', '=', urlKey).execute()
    return false
  }
  return true
}

export const deleteCrawlPages = (db: Db | Tx, crawlId: string) => db.deleteFrom('crawl_pages').where('crawl_id', '=', crawlId).execute()

/** Ended crawls past their 24 hours: removed with their page records. */
export async function pruneExpiredCrawls(db: Db, now: number): Promise<number> {
  const expired = await db.selectFrom('crawls').select('id').where('expires_at', '<', now).limit(500).execute()
  if (expired.length === 0) return 0
  const ids = expired.map((r) => r.id)
  await db.deleteFrom('crawl_pages').where('crawl_id', 'in', ids).execute()
  await db.deleteFrom('crawls').where('id', 'in', ids).execute()
  return ids.length
}
