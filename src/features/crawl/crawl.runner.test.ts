import { describe, expect, test } from 'vitest'
import { CRAWL_CONCURRENCY, CRAWL_READ_BACKLOG, type CrawlEnv, type CrawlPlan, type ReadFailure, type ReadOutcome, runCrawl } from './crawl.runner.ts'

/** A site of `n` pages /p0 … /p{n-1}, each linking to the next few: the runner only sees URLs. */
function plan(overrides: Partial<CrawlPlan> = {}): CrawlPlan {
  return {
    startUrl: 'http://site.test/p0',
    limit: 100,
    maxDepth: 10,
    sitemap: 'skip',
    follow: () => true,
    canonical: (raw, base) => {
      const url = new URL(raw, base)
      return url.hostname === 'site.test' ? url.href : null
    },
    key: (url) => url,
    ...overrides,
  }
}

function env(overrides: Partial<CrawlEnv> & { pages?: number; fanout?: number } = {}): CrawlEnv {
  const pages = overrides.pages ?? 30
  const fanout = overrides.fanout ?? 3
  return {
    robots: async () => ({ statusText: 'found', blocked: false, isAllowed: () => true, crawlDelayMs: null, sitemaps: [] }),
    sitemapUrls: async () => [],
    read: async (url): Promise<ReadOutcome | ReadFailure> => {
      const n = Number(new URL(url).pathname.slice(2))
      const links = Array.from({ length: fanout }, (_, i) => n + i + 1)
        .filter((m) => m < pages)
        .map((m) => ({ url: `/p${m}`, text: `page ${m}` }))
      return { ok: true, url, page: { title: `p${n}` }, links, bytes: 1000, cached: false }
    },
    onPage: async () => {},
    onProgress: () => {},
    canceled: () => false,
    ...overrides,
  }
}

describe('runCrawl', () => {
  test('never has more than 5 reads in flight', async () => {
    let inFlight = 0
    let peak = 0
    const base = env({ pages: 60, fanout: 10 })
    const outcome = await runCrawl(
      plan(),
      env({
        pages: 60,
        read: async (url) => {
          inFlight++
          peak = Math.max(peak, inFlight)
          await new Promise((r) => setTimeout(r, 5))
          inFlight--
          return base.read(url, () => {})
        },
      }),
    )
    expect(outcome.stats.pages).toBe(60)
    expect(peak).toBe(5)
  })

  test('frees a fetch slot when the body is in: at most 5 fetches, reading overlaps, backlog bounded', async () => {
    let fetching = 0
    let fetchPeak = 0
    let inFlight = 0
    let inFlightPeak = 0
    const base = env({ pages: 80, fanout: 10 })
    const outcome = await runCrawl(
      plan(),
      env({
        read: async (url, fetched) => {
          inFlight++
          fetching++
          inFlightPeak = Math.max(inFlightPeak, inFlight)
          fetchPeak = Math.max(fetchPeak, fetching)
          await new Promise((r) => setTimeout(r, 2))
          fetching--
          fetched()
          // Reading takes longer than fetching: other fetches start meanwhile.
          await new Promise((r) => setTimeout(r, 10))
          inFlight--
          return base.read(url, () => {})
        },
      }),
    )
    expect(outcome.stats).toMatchObject({ pages: 80, stopped: 'done' })
    expect(fetchPeak).toBe(CRAWL_CONCURRENCY)
    expect(inFlightPeak).toBeGreaterThan(CRAWL_CONCURRENCY)
    expect(inFlightPeak).toBeLessThanOrEqual(CRAWL_CONCURRENCY + CRAWL_READ_BACKLOG)
  })

  test('stops at the limit without reading past it', async () => {
    const read: string[] = []
    const base = env()
    const outcome = await runCrawl(
      plan({ limit: 7 }),
      env({
        read: async (url) => {
          read.push(url)
          return base.read(url, () => {})
        },
      }),
    )
    expect(outcome.stats).toMatchObject({ pages: 7, stopped: 'limit' })
    expect(read.length).toBe(7)
  })

  test('stops at 30 minutes and at 16 MB', async () => {
    let clock = 0
    const slow = await runCrawl(
      plan(),
      env({
        now: () => clock,
        read: async (url) => {
          clock += 6 * 60_000 // each page "takes" six minutes
          return env().read(url, () => {})
        },
      }),
    )
    expect(slow.stats.stopped).toBe('time_limit')
    expect(slow.stats.pages).toBeLessThanOrEqual(10)
    const big = await runCrawl(plan(), env({ read: async (url) => ({ ...((await env().read(url, () => {})) as ReadOutcome), bytes: 5 * 1024 * 1024 }) }))
    expect(big.stats).toMatchObject({ pages: 4, stopped: 'size_limit' })
  })

  test('gives up on a failing site, and reports robots disallowed URLs without reading them', async () => {
    // The start page links to 40 pages that all fail: stop once failures are many and outnumber pages.
    const failing = await runCrawl(
      plan(),
      env({
        read: async (url) =>
          url.endsWith('/p0')
            ? { ok: true, url, page: {}, links: Array.from({ length: 40 }, (_, i) => ({ url: `/x${i}`, text: '' })), bytes: 10, cached: false }
            : { ok: false, error: { code: 'upstream_error', message: 'page answered HTTP 500' } },
      }),
    )
    expect(failing.stats.stopped).toBe('too_many_failures')
    expect(failing.stats.failed).toBeLessThan(40)
    const read: string[] = []
    const outcome = await runCrawl(
      plan(),
      env({
        robots: async () => ({ statusText: 'found', blocked: false, isAllowed: (u) => !u.endsWith('/p2'), crawlDelayMs: null, sitemaps: [] }),
        read: async (url) => {
          read.push(url)
          return env().read(url, () => {})
        },
      }),
    )
    expect(read).not.toContain('http://site.test/p2')
    expect(outcome.stats.robots_disallowed).toBe(1)
  })

  test('honours Crawl-delay between fetch starts', async () => {
    let clock = 0
    const waits: number[] = []
    const outcome = await runCrawl(
      plan({ limit: 4 }),
      env({
        robots: async () => ({ statusText: 'found', blocked: false, isAllowed: () => true, crawlDelayMs: 2000, sitemaps: [] }),
        now: () => clock,
        sleep: async (ms) => {
          waits.push(ms)
          clock += ms
        },
      }),
    )
    expect(outcome.stats).toMatchObject({ pages: 4, crawl_delay_ms: 2000 })
    expect(waits.length).toBeGreaterThan(0)
    expect(waits.every((w) => w > 0 && w <= 2000)).toBe(true)
  })

  test('reads the start page while robots.txt and the sitemaps load; its links wait for them', async () => {
    const events: string[] = []
    let robotsIn = () => {}
    const base = env({ pages: 5 })
    const outcome = await runCrawl(
      plan({ sitemap: 'include' }),
      env({
        sitemapUrls: async () => ['http://site.test/p4'],
        robots: async () => {
          events.push('robots asked')
          await new Promise<void>((resolve) => {
            robotsIn = resolve
          })
          events.push('robots in')
          return { statusText: 'found', blocked: false, isAllowed: (url) => !url.endsWith('/p2'), crawlDelayMs: null, sitemaps: [] }
        },
        read: async (url, fetched) => {
          events.push(`read ${new URL(url).pathname}`)
          if (url.endsWith('/p0')) setTimeout(robotsIn, 20) // robots.txt arrives after the start page
          return base.read(url, fetched)
        },
      }),
    )
    // The sitemap's page comes before the start page's links, as when the start page was read last;
    // its link to /p2 was held back until robots.txt, which disallows it, was in.
    expect(events).toEqual(['robots asked', 'read /p0', 'robots in', 'read /p4', 'read /p1', 'read /p3'])
    expect(outcome.stats).toMatchObject({ pages: 4, robots_disallowed: 1, sitemap_urls: 1 })
  })

  test('best first with a query reads the matching link before the others', async () => {
    const order: string[] = []
    const outcome = await runCrawl(
      plan({ limit: 2, query: 'special' }),
      env({
        read: async (url) => {
          order.push(url)
          if (url.endsWith('/p0')) {
            return {
              ok: true,
              url,
              page: {},
              links: [
                { url: '/p1', text: 'plain' },
                { url: '/p2', text: 'plain' },
                { url: '/p3', text: 'the special one' },
              ],
              bytes: 10,
              cached: false,
            }
          }
          return { ok: true, url, page: {}, links: [], bytes: 10, cached: false }
        },
      }),
    )
    expect(outcome.stats.pages).toBe(2)
    expect(order).toEqual(['http://site.test/p0', 'http://site.test/p3'])
  })

  test('places pages in the order they were taken, not the order their reads finished', async () => {
    const placed: { url: unknown; place: number }[] = []
    const base = env({ pages: 12, fanout: 11 })
    await runCrawl(
      plan({ sitemap: 'include' }),
      env({
        // Sitemap pages start with the start page; later pages read faster, so they finish first.
        sitemapUrls: async () => ['http://site.test/p5', 'http://site.test/p6'],
        read: async (url) => {
          const n = Number(new URL(url).pathname.slice(2))
          await new Promise((r) => setTimeout(r, Math.max(1, 30 - n * 3)))
          return base.read(url, () => {})
        },
        onPage: async (_key, _cached, page, place) => {
          placed.push({ url: page.url, place })
        },
      }),
    )
    const inOrder = placed.toSorted((a, b) => a.place - b.place).map((p) => p.url)
    expect(placed.map((p) => p.url)).not.toEqual(inOrder) // reads did finish out of order
    expect(inOrder.slice(0, 3)).toEqual(['http://site.test/p0', 'http://site.test/p5', 'http://site.test/p6'])
    expect(inOrder).toHaveLength(12)
  })
})
