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

export function runCrawl(plan: CrawlPlan, env: CrawlEnv): Promise<CrawlOutcome> {
  return new Crawl(plan, env).run()
}

/** The URLs still to read, each page once (by its key): best first with a query, breadth first without. */
class Frontier {
  private readonly seen = new Set<string>()
  private readonly items: Item[] = []
  private readonly queryTerms: Set<string> | null
  private order = 0
  duplicates = 0
  discovered = 0

  constructor(private readonly plan: CrawlPlan) {
    this.queryTerms = plan.query ? new Set(tokenize(plan.query)) : null
  }

  get size() {
    return this.items.length
  }

  /** Adds a URL once; returns false for duplicates and off-site URLs. */
  add(raw: string, depth: number, text?: string, base?: string) {
    const url = this.plan.canonical(raw, base)
    if (!url) return false
    const key = this.plan.key(url)
    if (this.seen.has(key)) {
      this.duplicates++
      return false
    }
    this.seen.add(key)
    this.discovered++
    this.items.push({ url, depth, score: this.score(url, text), order: this.order++ })
    return true
  }

  /** A page known under another URL (a redirect's target): never queued again. */
  markSeen(key: string) {
    this.seen.add(key)
  }

  // Stable by discovery order among equal scores.
  next(): Item | undefined {
    if (!this.queryTerms) return this.items.shift()
    let best = 0
    for (let i = 1; i < this.items.length; i++) {
      const a = this.items[i]!
      const b = this.items[best]!
      if (a.score > b.score || (a.score === b.score && a.depth < b.depth)) best = i
    }
    return this.items.splice(best, 1)[0]
  }

  private score(url: string, text = '') {
    if (!this.queryTerms) return 0
    let hits = 0
    for (const t of new Set([...tokenize(url), ...tokenize(text)])) if (this.queryTerms.has(t)) hits++
    return hits
  }
}

/** One crawl: `run` starts the start page, then keeps the fetch slots busy until a stop reason. */
class Crawl {
  private readonly now: () => number
  private readonly sleep: (ms: number) => Promise<void>
  private readonly started: number
  private readonly frontier: Frontier
  private readonly robotsReady: Promise<RobotsView>
  /** robots.txt with the sitemaps' pages queued: what a page's links wait for. */
  private frontierReady: Promise<RobotsView> | null = null
  private pages = 0
  private readonly failed: CrawlOutcome['failed'] = []
  private readonly readKeys = new Set<string>() // keys of pages already read
  private sitemapUrls = 0
  private robotsDisallowed = 0
  private bytes = 0
  private nextSlot = 0 // Crawl-delay: earliest start of the next fetch
  private readonly inFlight = new Set<Promise<void>>() // fetching or being read
  private fetching = 0
  // The loop sleeps until a fetch slot frees or a page is done.
  private wake: (() => void) | null = null
  private taken = 0 // pages taken from the frontier: each one's place in the result

  constructor(
    private readonly plan: CrawlPlan,
    private readonly env: CrawlEnv,
  ) {
    this.now = env.now ?? Date.now
    this.sleep = env.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
    this.started = this.now()
    this.frontier = new Frontier(plan)
    // robots.txt (and the sitemaps it names) load while the start page is read: robots.txt does not
    // apply to the start page, and nothing was fetched before it, so no Crawl-delay is owed. On a
    // site answering in 200 ms, the first page comes 200-600 ms sooner (docs/crawl.md).
    this.robotsReady = env.robots()
  }

  async run(): Promise<CrawlOutcome> {
    this.frontier.add(this.plan.startUrl, 0)
    // The sitemaps' pages join the frontier before the start page's links, however the start page's
    // read and the sitemaps race: the frontier and the stats come out as if it were read after them.
    this.frontierReady = this.robotsReady.then((robots) => this.addSitemapPages(robots))
    const firstFetchAt = this.now()
    this.launch(this.frontier.next()!)
    const robots = await this.frontierReady
    // The start page's fetch counts as the first one for Crawl-delay.
    if (robots.crawlDelayMs) this.nextSlot = firstFetchAt + robots.crawlDelayMs
    const stopped = await this.fillSlots(robots)
    await Promise.all(this.inFlight)
    this.progress(0)
    return this.outcome(robots, stopped)
  }

  private async addSitemapPages(robots: RobotsView) {
    if (!robots.blocked && this.plan.sitemap !== 'skip' && this.plan.maxDepth >= 1) {
      for (const url of await this.env.sitemapUrls(robots.sitemaps, Math.min(this.plan.limit * 10, 5000))) {
        // Sitemap pages count as depth 1; the filters apply as to any link.
        if (this.plan.follow(url) && this.frontier.add(url, 1)) this.sitemapUrls++
      }
    }
    return robots
  }

  /** Starts pages while a fetch slot is free, until a stop reason; waits for a slot or a page between. */
  private async fillSlots(robots: RobotsView): Promise<StoppedReason> {
    while (true) {
      const stopped = this.stopReason()
      if (stopped) return stopped
      // Never more pages in flight than pages still wanted: the limit is not overshot.
      const wanted = this.plan.limit - this.pages
      if (this.frontier.size > 0 && this.fetching < CRAWL_CONCURRENCY && this.inFlight.size < Math.min(CRAWL_CONCURRENCY + CRAWL_READ_BACKLOG, wanted)) {
        const item = this.frontier.next()!
        if (item.depth > 0 && !robots.isAllowed(item.url)) {
          this.robotsDisallowed++
          continue
        }
        if (item.depth > 0 && robots.blocked) continue
        this.launch(item)
        continue
      }
      if (this.inFlight.size === 0) return 'done'
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
    }
  }

  private stopReason(): StoppedReason | null {
    if (this.env.canceled()) return 'canceled'
    if (this.pages >= this.plan.limit) return 'limit'
    if (this.now() - this.started > CRAWL_TIME_LIMIT_MS) return 'time_limit'
    if (this.bytes > CRAWL_SIZE_LIMIT_BYTES) return 'size_limit'
    if (tooManyFailures(this.failed.length, this.pages)) return 'too_many_failures'
    return null
  }

  private nudge() {
    this.wake?.()
    this.wake = null
  }

  /** Starts reading `item` in a fetch slot; `run` waits for every task it starts. */
  private launch(item: Item) {
    let fetchDone = false
    const fetched = () => {
      if (fetchDone) return
      fetchDone = true
      this.fetching--
      this.nudge()
    }
    this.fetching++
    const task: Promise<void> = this.visit(item, this.taken++, fetched).finally(() => {
      fetched()
      this.inFlight.delete(task)
      this.progress(this.inFlight.size)
      this.nudge()
    })
    this.inFlight.add(task)
  }

  private async visit(item: Item, place: number, fetched: () => void) {
    if (item.depth > 0) await this.crawlDelay()
    const outcome = await this.env.read(item.url, fetched)
    // The start page may be read before robots.txt and the sitemaps are in: its links wait for them.
    // (If they fail, runCrawl fails with them, in `run`; this page's outcome no longer matters.)
    const robots = await this.frontierReady!.catch(() => null)
    if (!robots) return
    if (!outcome.ok) {
      this.failed.push({ url: item.url, error: outcome.error })
      return
    }
    if (this.pages >= this.plan.limit) return // finished late, after the limit was reached by others
    // Redirects folded: the final URL is a page of its own, never to be read again. A redirect and
    // its target may be read at the same time, so whichever finishes second is the duplicate.
    const finalKey = this.plan.key(outcome.url)
    if (this.readKeys.has(finalKey)) {
      this.frontier.duplicates++
      return
    }
    if (finalKey !== this.plan.key(item.url)) this.frontier.markSeen(finalKey)
    this.readKeys.add(finalKey)
    this.bytes += outcome.bytes
    // Links first: free fetch slots start on them while the page is being paid for.
    if (item.depth < this.plan.maxDepth && this.plan.sitemap !== 'only' && !robots.blocked) {
      for (const link of outcome.links) {
        const url = this.plan.canonical(link.url, outcome.url)
        if (url && this.plan.follow(url)) this.frontier.add(url, item.depth + 1, link.text)
      }
      this.nudge()
    }
    this.pages++ // counted before it is stored, so pages finishing together cannot overshoot the limit
    await this.env.onPage(finalKey, outcome.cached, { url: outcome.url, depth: item.depth, ...outcome.page }, place)
  }

  /** Waits for this fetch's Crawl-delay turn, and books the next one. */
  private async crawlDelay() {
    const { crawlDelayMs } = await this.robotsReady
    if (!crawlDelayMs) return
    const wait = this.nextSlot - this.now()
    this.nextSlot = Math.max(this.now(), this.nextSlot) + crawlDelayMs
    if (wait > 0) await this.sleep(wait)
  }

  private progress(inFlight: number) {
    this.env.onProgress({
      pages_done: this.pages,
      pages_failed: this.failed.length,
      pages_queued: this.frontier.size + inFlight,
      pages_discovered: this.frontier.discovered,
      limit: this.plan.limit,
    })
  }

  private outcome(robots: RobotsView, stopped: StoppedReason): CrawlOutcome {
    return {
      pages: this.pages,
      failed: this.failed,
      stats: {
        pages: this.pages,
        failed: this.failed.length,
        seconds: Math.round((this.now() - this.started) / 100) / 10,
        discovered: this.frontier.discovered,
        queued: this.frontier.size,
        duplicates: this.frontier.duplicates,
        sitemap_urls: this.sitemapUrls,
        robots: robots.statusText,
        robots_disallowed: this.robotsDisallowed,
        robots_blocked: robots.blocked,
        crawl_delay_ms: robots.crawlDelayMs,
        stopped,
      },
    }
  }
}
