import { mapLimit } from '../../jobs/map-limit.ts'
import { type ParsedSitemap, parseSitemap } from './sitemap.parse.ts'

export interface SitemapFetchResult {
  body: Buffer
  contentType?: string
  /** Final URL after redirects, when the fetcher followed any: a redirect back to a sitemap already read is not read again. */
  url?: string
}

/**
 * Fetches one sitemap; null when there is nothing to read (the caller's policy, e.g. off-site).
 * A thrown error is recorded in `errors` and the walk goes on. The signal aborts at the deadline.
 */
export type SitemapFetcher = (url: string, opts: { signal: AbortSignal }) => Promise<SitemapFetchResult | null>

export interface SitemapLimits {
  /** How many index levels below the start sitemaps are followed (0: the starts only). */
  maxDepth: number
  /** Sitemaps fetched at most, failed fetches included. */
  maxSitemaps: number
  maxUrls: number
  /** Epoch ms; fetches still running then are abandoned. */
  deadline: number
  /** Sitemaps fetched at a time; default 4. */
  concurrency?: number
}

export interface SitemapEntry {
  url: string
  lastmod?: string
  /** The sitemap that listed it. */
  sitemap: string
}

export type SitemapStop = 'max_urls' | 'max_sitemaps' | 'deadline'

export interface CollectedSitemaps {
  /** Page URLs in sitemap order, each exact URL once (the first sitemap listing it wins). */
  entries: SitemapEntry[]
  sitemapsRead: number
  /** One line per sitemap that could not be read or was skipped, `<url>: <reason>`. */
  errors: string[]
  /** Set when a limit cut the walk short. */
  stopped?: SitemapStop
}

type FetchOutcome = { ok: true; result: SitemapFetchResult | null } | { ok: false; reason: string; timedOut?: boolean }

const DEFAULT_CONCURRENCY = 4

/** Sitemap identity: the URL as parsed, fragment dropped. Anything unparseable is its own key. */
function sitemapKey(url: string): string {
  try {
    const u = new URL(url)
    u.hash = ''
    return u.href
  } catch {
    return url
  }
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))

/**
 * Runs the fetcher, but never past the deadline: a fetcher that ignores its signal is abandoned,
 * not awaited, so one slow host cannot hold a 30-second map call hostage.
 */
async function fetchBefore(fetchBody: SitemapFetcher, url: string, deadline: number): Promise<FetchOutcome> {
  const remaining = deadline - Date.now()
  if (remaining <= 0) return { ok: false, reason: 'deadline reached', timedOut: true }
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<FetchOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort()
      resolve({ ok: false, reason: 'deadline reached', timedOut: true })
    }, remaining)
  })
  const fetched = Promise.resolve()
    .then(() => fetchBody(url, { signal: controller.signal }))
    .then(
      (result): FetchOutcome => ({ ok: true, result }),
      (e): FetchOutcome => ({ ok: false, reason: message(e) }),
    )
  try {
    return await Promise.race([fetched, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Walks sitemaps breadth first from `starts` (robots.txt's Sitemap lines, or /sitemap.xml):
 * indexes are followed up to `maxDepth` levels, no sitemap is fetched twice (an index listing
 * itself or a parent, or redirecting to one, is the classic loop), and the walk stops at
 * `maxSitemaps` fetches, `maxUrls` entries or the deadline, returning what it has. Levels are
 * fetched a few at a time but processed in listing order, so the output does not depend on timing.
 */
export async function collectSitemaps(starts: string[], fetchBody: SitemapFetcher, limits: SitemapLimits): Promise<CollectedSitemaps> {
  const entries: SitemapEntry[] = []
  const errors: string[] = []
  const seenSitemaps = new Set<string>()
  const seenUrls = new Set<string>()
  let sitemapsRead = 0
  let fetches = 0
  let stopped: SitemapStop | undefined

  let level: string[] = []
  for (const start of starts) {
    const key = sitemapKey(start)
    if (seenSitemaps.has(key)) continue
    seenSitemaps.add(key)
    level.push(start)
  }

  for (let depth = 0; level.length > 0 && !stopped; depth++) {
    if (Date.now() >= limits.deadline) {
      stopped = 'deadline'
      break
    }
    const budget = limits.maxSitemaps - fetches
    const batch = level.slice(0, Math.max(0, budget))
    if (batch.length < level.length) {
      stopped = 'max_sitemaps'
      errors.push(`${level.length - batch.length} sitemap(s) not read: at most ${limits.maxSitemaps} per call`)
    }
    fetches += batch.length
    const outcomes = await mapLimit(batch, limits.concurrency ?? DEFAULT_CONCURRENCY, (url) => fetchBefore(fetchBody, url, limits.deadline))
    const next: string[] = []

    for (const [i, url] of batch.entries()) {
      const outcome = outcomes[i]!
      if (!outcome.ok) {
        if (outcome.timedOut) stopped = 'deadline'
        errors.push(`${url}: ${outcome.reason}`)
        continue
      }
      const fetched = outcome.result
      if (!fetched) {
        errors.push(`${url}: not available`)
        continue
      }
      if (fetched.url && sitemapKey(fetched.url) !== sitemapKey(url)) {
        const finalKey = sitemapKey(fetched.url)
        if (seenSitemaps.has(finalKey)) {
          errors.push(`${url}: redirects to ${fetched.url}, which is already read`)
          continue
        }
        seenSitemaps.add(finalKey)
      }
      let parsed: ParsedSitemap
      try {
        parsed = parseSitemap(fetched.body, { url: fetched.url ?? url, contentType: fetched.contentType })
      } catch (e) {
        errors.push(`${url}: ${message(e)}`)
        continue
      }
      // An HTML page (a soft 404, a redirect to the home page), JSON, or text without a URL: nothing was listed.
      if (parsed.kind === 'unknown') {
        errors.push(`${url}: not a sitemap`)
        continue
      }
      sitemapsRead++

      for (const item of parsed.urls) {
        if (seenUrls.has(item.url)) continue
        if (entries.length >= limits.maxUrls) {
          stopped = 'max_urls'
          break
        }
        seenUrls.add(item.url)
        entries.push(item.lastmod === undefined ? { url: item.url, sitemap: url } : { url: item.url, lastmod: item.lastmod, sitemap: url })
      }
      if (stopped === 'max_urls') break

      for (const child of parsed.sitemaps) {
        const key = sitemapKey(child)
        if (seenSitemaps.has(key)) continue
        if (depth + 1 > limits.maxDepth) {
          errors.push(`${child}: sitemap indexes nested deeper than ${limits.maxDepth} levels are not followed`)
          continue
        }
        seenSitemaps.add(key)
        next.push(child)
      }
    }
    level = next
  }

  return stopped ? { entries, sitemapsRead, errors, stopped } : { entries, sitemapsRead, errors }
}
