import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { crawlJobKind } from '../src/features/crawl/crawl.worker.ts'
import { claimDue } from '../src/jobs/jobs.store.ts'
import { siteKey } from '../src/site/urls/url.canonical.ts'
import { openStore, type Store } from '../src/store/database.ts'
import { readWebhookSecret } from '../src/webhooks/webhooks.service.ts'
import { expectBooksBalanced } from './support/books.ts'
import { article, type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { startReceiver, verifyStandardSignature, verifyTrawlSignature } from './support/webhook-receiver.ts'

const ENV = { TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_SCHEDULER_POLL_MS: '200' }

let site: CrawlSite
beforeAll(async () => {
  site = await startCrawlSite()
})
afterAll(() => site.close())

const call = (t: Trawl, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${t.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })

/** Polls GET /v1/crawl/{id} until the crawl has ended. */
async function ended(t: Trawl, key: string, id: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    const task = await (await call(t, key, 'GET', `/v1/crawl/${id}`)).json()
    if (['completed', 'failed', 'canceled'].includes(task.status)) return task
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`crawl ${id} did not end in ${timeoutMs} ms`)
}

const pathsOf = (pages: { url: string }[]) => pages.map((p) => new URL(p.url).pathname).sort()

/** More pages than GET /v1/crawl/{id} reads from the store in one batch (64), behind one index page. */
const SERIES = 150

/**
 * Crawls the series: its result is streamed out of the store in several batches, and must come
 * back whole, as one JSON document, in the order the pages were found (the index's link order).
 */
async function expectSeriesStreamed(t: Trawl, key: string) {
  const paths = Array.from({ length: SERIES }, (_, i) => `/series/${i}`)
  // Text beyond ASCII: the stored pages go out as their UTF-8 bytes (crawl.store.ts crawlPageBatches).
  site.set('/series/', { status: 200, body: article('Series index: crème brûlée, 東京 🙂', paths) })
  for (const [i, path] of paths.entries()) site.set(path, { status: 200, body: article(`Series part ${i}`) })
  const body = { url: `${site.url}/series/`, limit: 1000, max_depth: 1, sitemap: 'skip', include_paths: ['^/series/'] }
  const created = await (await call(t, key, 'POST', '/v1/crawl', body)).json()
  expect((await ended(t, key, created.id, 60_000)).status).toBe('completed')
  const res = await call(t, key, 'GET', `/v1/crawl/${created.id}`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
  expect(res.headers.get('transfer-encoding')).toBe('chunked')
  const task = await res.json()
  expect(task.result.pages.map((p: { url: string }) => new URL(p.url).pathname)).toEqual(['/series/', ...paths])
  expect(task.result.pages[SERIES].markdown).toContain('Series part 149 paragraph 3')
  expect(task.result.pages[0].markdown).toContain('Series index: crème brûlée, 東京 🙂 paragraph 1')
  expect(task).toMatchObject({ credits_used: SERIES + 1, result: { stats: { pages: SERIES + 1, failed: 0 } } })
}

/**
 * The store `store` with one difference: the first transaction that does not begin with an INSERT
 * (a crawl's end, not a page's charge) stops after its first statement until `resume()`, so
 * another worker can act between the ending worker's first statement and the rest.
 */
function pausingStore(store: Store) {
  let armed = true
  let pauseNext = false
  let reached = () => {}
  let resume = () => {}
  const atPause = new Promise<void>((r) => {
    reached = r
  })
  const gate = new Promise<void>((r) => {
    resume = r
  })
  const paused: Store = {
    ...store,
    transaction: (fn) =>
      store.db.transaction().execute((tx) => {
        let first = true
        return fn(
          tx.withPlugin({
            transformQuery: (args) => {
              if (first) {
                first = false
                pauseNext = armed && args.node.kind !== 'InsertQueryNode'
                if (pauseNext) armed = false
              }
              return args.node
            },
            transformResult: async (args) => {
              if (pauseNext) {
                pauseNext = false
                reached()
                await gate
              }
              return args.result
            },
          }),
        )
      }),
  }
  return { store: paused, atPause, resume }
}

/**
 * Worker A's lease on a crawl has lapsed as it ends the crawl; worker B (another process: another
 * connection) claims the crawl after A's first statement of the ending transaction, runs it if it
 * got it, then A goes on. The crawl ends once: one refund, one crawl.completed, the books balanced.
 */
async function raceTakeoverWithEnd(t: Trawl, other: Store) {
  const { id: accountId, key } = await t.account({ plan: 'pro', credits: 100 })
  const body = { url: `${site.url}/blog/`, limit: 10, sitemap: 'skip', max_depth: 1, webhook_url: 'http://127.0.0.1:9/never-sent' }
  const created = await (await call(t, key, 'POST', '/v1/crawl', body)).json()
  const id = created.id as string
  const store = t.services.store
  expect(await claimDue(store, 'crawls', { workerId: 'worker-a', leaseMs: 60_000, limit: 1 })).toEqual([id])
  // A is slow: its lease has lapsed, though no one has taken the crawl yet.
  await store.db
    .updateTable('crawls')
    .set({ lease_expires_at: Date.now() - 1 })
    .where('id', '=', id)
    .execute()

  const a = pausingStore(store)
  const ending = crawlJobKind({ ...t.services, store: a.store }, t.app.log).run(id, { workerId: 'worker-a', interrupted: () => false })
  const endingDone = ending.then(
    () => null,
    (e: unknown) => e,
  )
  await a.atPause
  // B tries to take the crawl over. On SQLite the ending worker may hold the write lock: B's
  // process would wait for it; here B is told at once (busy_timeout 0) rather than stall this one.
  if (other.dialect === 'sqlite') await sql`pragma busy_timeout = 0`.execute(other.db)
  const claimed = await claimDue(other, 'crawls', { workerId: 'worker-b', leaseMs: 60_000, limit: 1 }).catch((e: { code?: string }) => {
    if (e.code === 'SQLITE_BUSY') return [] as string[]
    throw e
  })
  if (other.dialect === 'sqlite') await sql`pragma busy_timeout = 5000`.execute(other.db)
  if (claimed.includes(id)) await crawlJobKind({ ...t.services, store: other }, t.app.log).run(id, { workerId: 'worker-b', interrupted: () => false })
  a.resume()
  await endingDone

  const task = await ended(t, key, id)
  expect(task).toMatchObject({ status: 'completed', credits_used: 5 })
  const refunds = await store.db.selectFrom('ledger').select('amount_mc').where('account_id', '=', accountId).where('kind', '=', 'refund').execute()
  expect(refunds).toHaveLength(1)
  const hooks = await store.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('account_id', '=', accountId)
    .where('event', '=', 'crawl.completed')
    .execute()
  expect(hooks).toHaveLength(1)
  expect(await expectBooksBalanced(t, accountId)).toBe(95)
  // Whoever ended it, the crawl is no one's any more: no later claim finds it.
  expect(await claimDue(other, 'crawls', { workerId: 'worker-c', leaseMs: 60_000, limit: 1 })).toEqual([])
}

describe('/v1/crawl', () => {
  let trawl: Trawl
  beforeAll(async () => {
    trawl = await startTrawl(ENV, { workers: true })
  })
  afterAll(() => trawl.close())

  test('reads the site breadth first within robots.txt, folds duplicates and redirects, refunds the unread reservation, signs crawl.completed', async () => {
    const receiver = await startReceiver()
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 100 })
    const res = await call(trawl, key, 'POST', '/v1/crawl', { url: `${site.url}/`, limit: 50, max_depth: 3, webhook_url: receiver.url })
    expect(res.status).toBe(202)
    expect(res.headers.get('x-credits-used')).toBe('50')
    const created = await res.json()
    expect(created).toMatchObject({ kind: 'crawl', status: 'queued', credits_reserved: 50, credits_used: 0 })

    const task = await ended(trawl, key, created.id)
    expect(task.status).toBe('completed')
    const pages = task.result.pages
    expect(pathsOf(pages)).toEqual(
      ['/', '/about', '/blog/', '/blog/post-1', '/blog/post-2', '/doc.pdf', '/docs/api', '/docs/guide', '/news/a', '/news/b', '/slow'].sort(),
    )
    expect(pages.find((p: { url: string }) => p.url.endsWith('/blog/post-1')).markdown).toContain('First post about gardening paragraph 1')
    expect(pages.find((p: { url: string }) => p.url.endsWith('/doc.pdf')).markdown.length).toBeGreaterThan(100)
    expect(pages.find((p: { url: string }) => p.url === `${site.url}/`).depth).toBe(0)
    // Never fetched: the disallowed section; fetched once: each page, whatever its duplicates.
    expect(site.requests.filter((r) => r.startsWith('/private'))).toEqual([])
    expect(site.requests).toContain('/old') // read once, found to be /about: folded, not a page of its own
    expect(site.requests.filter((r) => r.startsWith('/blog/post-1'))).toHaveLength(1)
    expect(task.result.stats).toMatchObject({
      pages: 11,
      failed: 0,
      robots: 'found',
      robots_disallowed: 1,
      robots_blocked: false,
      stopped: 'done',
      sitemap_urls: expect.any(Number),
    })
    expect(task.result.stats.duplicates).toBeGreaterThan(0)
    expect(task).toMatchObject({ credits_used: 11, progress: { pages_done: 11, limit: 50 } })
    expect(await expectBooksBalanced(trawl, accountId)).toBe(89)

    for (let i = 0; i < 100 && receiver.hits.length === 0; i++) await new Promise((r) => setTimeout(r, 50))
    const hit = receiver.hits[0]!
    expect(hit.headers['x-trawl-event']).toBe('crawl.completed')
    const secret = (await readWebhookSecret(trawl.services.store, accountId))!
    expect(verifyTrawlSignature(secret, hit)).toBe(true)
    expect(verifyStandardSignature(secret, hit)).toBe(true)
    expect(JSON.parse(hit.body)).toMatchObject({ event: 'crawl.completed', id: created.id, status: 'completed', credits_used: 11 })
    const after = await (await call(trawl, key, 'GET', `/v1/crawl/${created.id}`)).json()
    expect(after.webhook_status).toBe('delivered')
    await receiver.close()
  })

  test('with max_age, pages read by an earlier crawl come from the cache at half a credit', async () => {
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 100 })
    const before = site.requests.length
    const task = await ended(
      trawl,
      key,
      (await (await call(trawl, key, 'POST', '/v1/crawl', { url: site.url, limit: 3, sitemap: 'skip', max_age: 3600 })).json()).id,
    )
    expect(task.result.pages).toHaveLength(3)
    expect(task.credits_used).toBe(1.5)
    expect(site.requests.slice(before).filter((r) => r !== '/robots.txt')).toEqual([])
    expect(await expectBooksBalanced(trawl, accountId)).toBe(98.5)
  })

  test('limit, max_depth 0, best-first query and path filters', async () => {
    const { key } = await trawl.account({ plan: 'pro', credits: 100 })
    const start = async (body: Record<string, unknown>) => ended(trawl, key, (await (await call(trawl, key, 'POST', '/v1/crawl', body)).json()).id)
    const limited = await start({ url: site.url, limit: 3, sitemap: 'skip' })
    expect(limited.result.stats).toMatchObject({ pages: 3, stopped: 'limit' })
    expect(limited.credits_used).toBe(3)
    const shallow = await start({ url: site.url, max_depth: 0 })
    expect(pathsOf(shallow.result.pages)).toEqual(['/'])
    const best = await start({ url: site.url, limit: 2, sitemap: 'skip', query: 'guide' })
    expect(pathsOf(best.result.pages)).toEqual(['/', '/docs/guide'])
    const filtered = await start({ url: site.url, sitemap: 'skip', include_paths: ['^/blog/'] })
    expect(pathsOf(filtered.result.pages)).toEqual(['/', '/blog/', '/blog/post-1', '/blog/post-2'])
  })

  test('progress counts the pages read while a slow page is still loading', async () => {
    const { key } = await trawl.account({ plan: 'pro', credits: 100 })
    site.set('/progress/', { status: 200, body: article('Progress index', ['/progress/a', '/progress/b', '/progress/slow']) })
    for (const path of ['/progress/a', '/progress/b']) site.set(path, { status: 200, body: article(path) })
    site.set('/progress/slow', { status: 200, body: article('Slow'), delayMs: 2500 })
    const body = { url: `${site.url}/progress/`, sitemap: 'skip', include_paths: ['^/progress/'] }
    const { id } = await (await call(trawl, key, 'POST', '/v1/crawl', body)).json()
    // The three quick pages are read within the first moments; the slow one takes 2.5 s.
    await new Promise((r) => setTimeout(r, 1500))
    const running = await (await call(trawl, key, 'GET', `/v1/crawl/${id}`)).json()
    expect(running.status).toBe('running')
    expect(running.progress.pages_done).toBe(3)
    expect((await ended(trawl, key, id)).progress.pages_done).toBe(4)
  })

  test('ignore_query_parameters reads one page per path, the first URL as found, query included', async () => {
    const { key } = await trawl.account({ plan: 'pro', credits: 100 })
    site.set('/q/', { status: 200, body: article('Query index', ['/q/item?id=1', '/q/item?id=2']) })
    site.set('/q/item', { status: 200, body: article('Item') })
    const body = { url: `${site.url}/q/`, sitemap: 'skip', include_paths: ['^/q/'], ignore_query_parameters: true }
    const task = await ended(trawl, key, (await (await call(trawl, key, 'POST', '/v1/crawl', body)).json()).id)
    expect(task.result.pages.map((p: { url: string }) => p.url)).toEqual([`${site.url}/q/`, `${site.url}/q/item?id=1`])
    expect(task.result.stats.duplicates).toBeGreaterThanOrEqual(1)
  })

  test('a robots.txt answering 5xx stops the crawl at the start page; nothing readable is no_pages, refunded', async () => {
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 100 })
    // A site of its own: robots.txt answers are cached per origin.
    const failing = await startCrawlSite()
    failing.set('/robots.txt', { status: 503 })
    try {
      const blocked = await ended(trawl, key, (await (await call(trawl, key, 'POST', '/v1/crawl', { url: failing.url, limit: 10 })).json()).id)
      expect(pathsOf(blocked.result.pages)).toEqual(['/'])
      expect(blocked.result.stats).toMatchObject({ robots_blocked: true, robots: expect.stringMatching(/server_error \(503\)/) })
      expect(failing.requests.filter((r) => r !== '/robots.txt')).toEqual(['/'])
    } finally {
      await failing.close()
    }
    const nothing = await ended(
      trawl,
      key,
      (await (await call(trawl, key, 'POST', '/v1/crawl', { url: `${site.url}/missing`, limit: 5, sitemap: 'skip' })).json()).id,
    )
    expect(nothing).toMatchObject({ status: 'failed', credits_used: 0, error: { code: 'no_pages' } })
    expect(await expectBooksBalanced(trawl, accountId)).toBe(99)
  })

  test('DELETE on a running crawl stops it at its next step and charges only the pages read', async () => {
    const { id: accountId, key } = await trawl.account({ plan: 'pro', credits: 100 })
    site.set('/about', { status: 200, body: '<p>slow</p>', delayMs: 3000 })
    try {
      const created = await (await call(trawl, key, 'POST', '/v1/crawl', { url: site.url, limit: 20, sitemap: 'skip' })).json()
      for (let i = 0; i < 100; i++) {
        const t = await (await call(trawl, key, 'GET', `/v1/crawl/${created.id}`)).json()
        if (t.progress.pages_done >= 1) break
        await new Promise((r) => setTimeout(r, 50))
      }
      expect((await call(trawl, key, 'DELETE', `/v1/crawl/${created.id}`)).status).toBe(200)
      const task = await ended(trawl, key, created.id)
      expect(task.status).toBe('canceled')
      expect(task.result.stats.stopped).toBe('canceled')
      expect(task.credits_used).toBe(task.result.pages.length)
      expect(await expectBooksBalanced(trawl, accountId)).toBe(100 - task.result.pages.length)
    } finally {
      site.reset('/about')
    }
  })

  test('a result of many pages streams out whole and in order', async () => {
    const { key } = await trawl.account({ plan: 'pro', credits: 1000 })
    await expectSeriesStreamed(trawl, key)
  })

  test('GET of another account’s crawl is 404', async () => {
    const a = await trawl.account({ plan: 'pro', credits: 10 })
    const b = await trawl.account({ plan: 'pro', credits: 10 })
    const created = await (await call(trawl, a.key, 'POST', '/v1/crawl', { url: site.url, limit: 1, sitemap: 'skip' })).json()
    expect((await call(trawl, b.key, 'GET', `/v1/crawl/${created.id}`)).status).toBe(404)
    await ended(trawl, a.key, created.id)
  })
})

describe('/v1/crawl without a running worker', () => {
  test('a queued crawl is canceled and refunded at once; more than 20 active crawls is 429', async () => {
    const t = await startTrawl(ENV) // API only: crawls stay queued
    try {
      const { id: accountId, key } = await t.account({ plan: 'pro', credits: 1000 })
      const first = await (await call(t, key, 'POST', '/v1/crawl', { url: site.url, limit: 30 })).json()
      const canceled = await (await call(t, key, 'DELETE', `/v1/crawl/${first.id}`)).json()
      expect(canceled).toMatchObject({ status: 'canceled', error: { code: 'canceled' } })
      expect(await expectBooksBalanced(t, accountId)).toBe(1000)
      // 30 simultaneous POSTs: exactly 20 are queued, the rest refused and not charged.
      const burst = await Promise.all(Array.from({ length: 30 }, () => call(t, key, 'POST', '/v1/crawl', { url: site.url, limit: 1 })))
      expect(burst.filter((r) => r.status === 202)).toHaveLength(20)
      const over = burst.find((r) => r.status === 429)!
      expect(over.headers.get('retry-after')).toBeTruthy()
      expect((await over.json()).error.code).toBe('rate_limited')
      expect(await expectBooksBalanced(t, accountId)).toBe(980)
    } finally {
      await t.close()
    }
  })

  test('a crawl whose worker was killed is claimed again when its lease expires, and pages already paid for are not charged twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-killed-'))
    try {
      const api = await startTrawl(ENV, { databaseDir: dir })
      const { id: accountId, key } = await api.account({ plan: 'pro', credits: 100 })
      const created = await (await call(api, key, 'POST', '/v1/crawl', { url: `${site.url}/blog/`, limit: 10, sitemap: 'skip', max_depth: 1 })).json()
      // What a worker killed mid-crawl leaves: a running row with a lapsed lease and one page paid for.
      const db = api.services.store.db
      await db
        .updateTable('crawls')
        .set({ status: 'running', lease_owner: 'killed-worker', lease_expires_at: Date.now() - 1, attempts: 1, credits_used_mc: 1000 })
        .where('id', '=', created.id)
        .execute()
      await db
        .insertInto('crawl_pages')
        .values({ crawl_id: created.id, url_key: siteKey(`${site.url}/blog/`), charged_mc: 1000 })
        .execute()
      await api.close()

      const worker = await startTrawl(ENV, { workers: true, databaseDir: dir })
      try {
        const task = await ended(worker, key, created.id)
        expect(task.status).toBe('completed')
        expect(pathsOf(task.result.pages)).toEqual(['/', '/about', '/blog/', '/blog/post-1', '/blog/post-2'])
        expect(task.credits_used).toBe(5) // the start page was paid for before the crash, once
        expect(await expectBooksBalanced(worker, accountId)).toBe(95)
      } finally {
        await worker.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a takeover while a worker ends the crawl: it ends once, refunded once (SQLite, two connections)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-takeover-'))
    const t = await startTrawl(ENV, { databaseDir: dir })
    const other = await openStore(`sqlite:${join(dir, 'trawl.db')}`)
    try {
      await raceTakeoverWithEnd(t, other)
    } finally {
      await other.close()
      await t.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a crawl interrupted by a shutdown restarts from the beginning on the next start, charging each page once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-restart-'))
    site.set('/docs/guide', { status: 200, body: '', delayMs: 2500 })
    try {
      const first = await startTrawl(ENV, { workers: true, databaseDir: dir })
      const { id: accountId, key } = await first.account({ plan: 'pro', credits: 100 })
      const created = await (await call(first, key, 'POST', '/v1/crawl', { url: site.url, limit: 50, sitemap: 'skip' })).json()
      for (let i = 0; i < 100; i++) {
        const t = await (await call(first, key, 'GET', `/v1/crawl/${created.id}`)).json()
        if (t.progress.pages_done >= 3) break
        await new Promise((r) => setTimeout(r, 50))
      }
      await first.close() // graceful: the running crawl goes back to the queue
      site.reset('/docs/guide')
      const second = await startTrawl(ENV, { workers: true, databaseDir: dir })
      try {
        const task = await ended(second, key, created.id)
        expect(task.status).toBe('completed')
        expect(task.credits_used).toBe(task.result.pages.length)
        expect(await expectBooksBalanced(second, accountId)).toBe(100 - task.result.pages.length)
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe.skipIf(skipWithoutPostgres)('/v1/crawl on PostgreSQL', () => {
  test('a takeover while a worker ends the crawl: it ends once, refunded once', async () => {
    const db = await createTestDatabase()
    const t = await startTrawl({ ...ENV, TRAWL_DATABASE_URL: db.url })
    const other = await openStore(db.url)
    try {
      await raceTakeoverWithEnd(t, other)
    } finally {
      await other.close()
      await t.close()
      await db.drop()
    }
  })

  test('two worker processes share the queue; each crawl runs once and the books balance', async () => {
    const db = await createTestDatabase()
    const a = await startTrawl({ ...ENV, TRAWL_DATABASE_URL: db.url }, { workers: true })
    const b = await startTrawl({ ...ENV, TRAWL_DATABASE_URL: db.url }, { workers: true })
    try {
      const { id: accountId, key } = await a.account({ plan: 'pro', credits: 100 })
      const ids = await Promise.all(
        [a, b, a, b].map(async (t) => (await (await call(t, key, 'POST', '/v1/crawl', { url: site.url, limit: 3, sitemap: 'skip' })).json()).id as string),
      )
      const tasks = await Promise.all(ids.map((id) => ended(a, key, id)))
      for (const task of tasks) expect(task).toMatchObject({ status: 'completed', credits_used: 3 })
      expect(await expectBooksBalanced(a, accountId)).toBe(88)
      await expectSeriesStreamed(b, (await a.account({ plan: 'pro', credits: 1000 })).key)
    } finally {
      await a.close()
      await b.close()
      await db.drop()
    }
  })
})
