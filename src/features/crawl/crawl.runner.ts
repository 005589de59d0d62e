import type { PageLink } from '../../site/page-links.ts'
import { tokenize } from '../../text/bm25.ts'
import type { CrawlStats, CrawlTask } from './crawl.response.ts'

/**
 * The crawl loop, free of storage and HTTP: a frontier of canonical URLs, at most 5 fetches in
 * flight, robots rules and Crawl-delay, and every limit of a crawl request (crawl.schema.ts). Its collaborators come in
 * through `CrawlEnv` so the loop can be tested and reused (a monitor or a batch could drive it).
 */

/** Fetches at a time (docs/crawl.md). A fetch's slot is freed when its body has arrived, not when the page is read. */
export const CRAWL_CONCURRENCY = 5
/** Pages fetched and still being read (on reader threads) at once, besides the fetches: bounds memory. */
export const CRAWL_READ_BACKLOG = 8
export const CRAWL_TIME_LIMIT_MS = 30 * 60_000
export const CRAWL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024

export type StoppedReason = CrawlStats['stopped']

export interface CrawlPlan {
  startUrl: string
  limit: number
  maxDepth: number
  sitemap: 'include' | 'only' | 'skip'
  query?: string
  /** Path filters; the start page is always read. */
  follow: (url: string) => boolean
  /** Canonical form of a URL, or null when it is not an http(s) page of this site. */
  canonical: (raw: string, base?: string) => string | null
  /** De-duplication key (www., scheme and trailing slash folded). */
  key: (url: string) => string
}

export interface RobotsView {
  statusText: string
  /** robots.txt answered 5xx or could not be reached: only the start page is read. */
  blocked: boolean
  isAllowed: (url: string) => boolean
  crawlDelayMs: number | null
  sitemaps: string[]
}

export interface ReadOutcome {
  ok: true
  /** Final URL after redirects. */
  url: string
  page: Record<string, unknown>
  links: PageLink[]
  bytes: number
  cached: boolean
}

export interface ReadFailure {
  ok: false
  error: { code: string; message: string }
}

export interface CrawlEnv {
  robots: () => Promise<RobotsView>
  sitemapUrls: (sitemaps: string[], maxUrls: number) => Promise<string[]>
  /** Fetches and reads a page; calls `fetched` as soon as the body is in (or the fetch failed). */
  read: (url: string, fetched: () => void) => Promise<ReadOutcome | ReadFailure>
  /**
   * A page came back: store it as the result lists it and count it (once per page across
   * restarts: the store decides). Pages are not kept here: a crawl's memory does not grow with them.
   * `place` orders the result: the order pages were taken from the frontier (the start page
   * first, then breadth or best first), not the order reads happen to finish in.
   */
  onPage: (key: string, cached: boolean, page: Record<string, unknown>, place: number) => Promise<void>
  onProgress: (p: CrawlProgress) => void
  canceled: () => boolean
  now?: () => number
  sleep?: (ms: number) => Promise<void>
}

export type CrawlProgress = CrawlTask['progress']

export interface CrawlOutcome {
  /** Pages read and handed to `onPage`. */
  pages: number
  failed: { url: string; error: { code: string; message: string } }[]
  stats: CrawlStats
}

interface Item {
  url: string
  depth: number
  score: number
  order: number
}

/** Enough failures to stop: at least 10, and more than twice the pages read. */
const tooManyFailures = (failed: number, done: number) => failed >= 10 && failed > done * 2

export async function runCrawl(plan: CrawlPlan, env: CrawlEnv): Promise<CrawlOutcome> {
  const now = env.now ?? Date.now
  const sleep = env.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const started = now()
  const queryTerms = plan.query ? new Set(tokenize(plan.query)) : null
  let pages = 0
  const failed: CrawlOutcome['failed'] = []
  const seen = new Set<string>()
  const readKeys = new Set<string>() // keys of pages already read
  const frontier: Item[] = []
  let order = 0
  let duplicates = 0
  let discovered = 0
  let sitemapUrls = 0
  let robotsDisallowed = 0
  let bytes = 0
  let stopped: StoppedReason | null = null

  // robots.txt (and the sitemaps it names) load while the start page is read: robots.txt does not
  // apply to the start page, and nothing was fetched before it, so no Crawl-delay is owed. On a
  // site answering in 200 ms, the first page comes 200-600 ms sooner (docs/crawl.md).
  const robotsReady = env.robots()
  const score = (url: string, text = '') => {
    if (!queryTerms) return 0
    let hits = 0
    for (const t of new Set([...tokenize(url), ...tokenize(text)])) if (queryTerms.has(t)) hits++
    return hits
  }
  /** Adds a URL to the frontier once; returns false for duplicates and off-site URLs. */
  const enqueue = (raw: string, depth: number, text?: string, base?: string) => {
    const url = plan.canonical(raw, base)
    if (!url) return false
    const key = plan.key(url)
    if (seen.has(key)) {
      duplicates++
      return false
    }
    seen.add(key)
    discovered++
    frontier.push({ url, depth, score: score(url, text), order: order++ })
    return true
  }
  const progress = (inFlight: number) =>
    env.onProgress({
      pages_done: pages,
      pages_failed: failed.length,
      pages_queued: frontier.length + inFlight,
      pages_discovered: discovered,
      limit: plan.limit,
    })

  // Best first with a query (stable by discovery order), breadth first without.
  const next = (): Item | undefined => {
    if (!queryTerms) return frontier.shift()
    let best = 0
    for (let i = 1; i < frontier.length; i++) {
      const a = frontier[i]!
      const b = frontier[best]!
      if (a.score > b.score || (a.score === b.score && a.depth < b.depth)) best = i
    }
    return frontier.splice(best, 1)[0]
  }

  let nextSlot = 0 // Crawl-delay: earliest start of the next fetch
  const inFlight = new Set<Promise<void>>() // fetching or being read
  let fetching = 0
  // The loop sleeps until a fetch slot frees or a page is done.
  let wake: (() => void) | null = null
  const nudge = () => {
    wake?.()
    wake = null
  }
  let taken = 0 // pages taken from the frontier: each one's place in the result
  const visit = async (item: Item, place: number, fetched: () => void) => {
    if (item.depth > 0) {
      const { crawlDelayMs } = await robotsReady
      if (crawlDelayMs) {
        const wait = nextSlot - now()
        nextSlot = Math.max(now(), nextSlot) + crawlDelayMs
        if (wait > 0) await sleep(wait)
      }
    }
    const outcome = await env.read(item.url, fetched)
    // The start page may be read before robots.txt and the sitemaps are in: its links wait for them.
    // (If they fail, runCrawl fails with them, below; this page's outcome no longer matters.)
    const robots = await frontierReady.catch(() => null)
    if (!robots) return
    if (!outcome.ok) {
      failed.push({ url: item.url, error: outcome.error })
      return
    }
    if (pages >= plan.limit) return // finished late, after the limit was reached by others
    // Redirects folded: the final URL is a page of its own, never to be read again. A redirect and
    // its target may be read at the same time, so whichever finishes second is the duplicate.
    const finalKey = plan.key(outcome.url)
    if (readKeys.has(finalKey)) {
      duplicates++
      return
    }
    if (finalKey !== plan.key(item.url)) seen.add(finalKey)
    readKeys.add(finalKey)
    bytes += outcome.bytes
    // Links first: free fetch slots start on them while the page is being paid for.
    if (item.depth < plan.maxDepth && plan.sitemap !== 'only' && !robots.blocked) {
      for (const link of outcome.links) {
        const url = plan.canonical(link.url, outcome.url)
        if (url && plan.follow(url)) enqueue(url, item.depth + 1, link.text)
      }
      nudge()
    }
    pages++ // counted before it is stored, so pages finishing together cannot overshoot the limit
    await env.onPage(finalKey, outcome.cached, { url: outcome.url, depth: item.depth, ...outcome.page }, place)
  }

  /** Starts reading `item` in a fetch slot; the loop below waits for every task it starts. */
  const launch = (item: Item) => {
    let fetchDone = false
    const fetched = () => {
      if (fetchDone) return
      fetchDone = true
      fetching--
      nudge()
    }
    fetching++
    const task: Promise<void> = visit(item, taken++, fetched).finally(() => {
      fetched()
      inFlight.delete(task)
      progress(inFlight.size)
      nudge()
    })
    inFlight.add(task)
  }

  enqueue(plan.startUrl, 0)
  // The sitemaps' pages join the frontier before the start page's links, however the start page's
  // read and the sitemaps race: the frontier and the stats come out as if it were read after them.
  const frontierReady = robotsReady.then(async (robots) => {
    if (!robots.blocked && plan.sitemap !== 'skip' && plan.maxDepth >= 1) {
      for (const url of await env.sitemapUrls(robots.sitemaps, Math.min(plan.limit * 10, 5000))) {
        // Sitemap pages count as depth 1; the filters apply as to any link.
        if (plan.follow(url) && enqueue(url, 1)) sitemapUrls++
      }
    }
    return robots
  })
  const firstFetchAt = now()
  launch(next()!)
  const robots = await frontierReady
  // The start page's fetch counts as the first one for Crawl-delay.
  if (robots.crawlDelayMs) nextSlot = firstFetchAt + robots.crawlDelayMs

  while (true) {
    if (env.canceled()) stopped = 'canceled'
    else if (pages >= plan.limit) stopped = 'limit'
    else if (now() - started > CRAWL_TIME_LIMIT_MS) stopped = 'time_limit'
    else if (bytes > CRAWL_SIZE_LIMIT_BYTES) stopped = 'size_limit'
    else if (tooManyFailures(failed.length, pages)) stopped = 'too_many_failures'
    if (stopped) break
    // Never more pages in flight than pages still wanted: the limit is not overshot.
    const wanted = plan.limit - pages
    if (frontier.length > 0 && fetching < CRAWL_CONCURRENCY && inFlight.size < Math.min(CRAWL_CONCURRENCY + CRAWL_READ_BACKLOG, wanted)) {
      const item = next()!
      if (item.depth > 0 && !robots.isAllowed(item.url)) {
        robotsDisallowed++
        continue
      }
      if (item.depth > 0 && robots.blocked) continue
      launch(item)
      continue
    }
    if (inFlight.size === 0) {
      stopped = 'done'
      break
    }
    await new Promise<void>((resolve) => {
      wake = resolve
    })
  }
  await Promise.all(inFlight)
  progress(0)
  return {
    pages,
    failed,
    stats: {
      pages,
      failed: failed.length,
      seconds: Math.round((now() - started) / 100) / 10,
      discovered,
      queued: frontier.length,
      duplicates,
      sitemap_urls: sitemapUrls,
      robots: robots.statusText,
      robots_disallowed: robotsDisallowed,
      robots_blocked: robots.blocked,
      crawl_delay_ms: robots.crawlDelayMs,
      stopped,
    },
  }
}
