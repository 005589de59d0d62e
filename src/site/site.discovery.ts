import type { Config } from '../config.ts'
import { safeFetch } from '../net/safe-fetch.ts'
import { RobotsCache, type SharedRobots } from './robots/robots.cache.ts'
import { type CollectedSitemaps, collectSitemaps, type SitemapFetcher } from './sitemaps/sitemap.collect.ts'
import { onSite } from './urls/site.match.ts'

/** How /v1/map and /v1/crawl find a site's pages: robots.txt, its sitemaps, the site's own links. */

const SITEMAP_FETCH_TIMEOUT_MS = 15_000
const ROBOTS_TIMEOUT_MS = 10_000

export function createRobotsCache(config: Pick<Config, 'allowPrivateNetwork'>, shared?: SharedRobots): RobotsCache {
  return new RobotsCache({ allowPrivateNetwork: config.allowPrivateNetwork, timeoutMs: ROBOTS_TIMEOUT_MS, shared })
}

/** Sitemaps through the private-network guard; only sitemaps on the site's own domain are read. */
export function sitemapFetcher(config: Pick<Config, 'allowPrivateNetwork'>, origin: string): SitemapFetcher {
  return async (url, { signal }) => {
    if (!onSite(url, origin, true)) return null // a robots.txt may name another site's sitemap
    const fetched = await safeFetch(url, {
      allowPrivateNetwork: config.allowPrivateNetwork,
      timeoutMs: SITEMAP_FETCH_TIMEOUT_MS,
      maxBytes: 50 * 1024 * 1024,
      anyContentType: true,
      signal,
    })
    return { body: fetched.body, contentType: fetched.headers['content-type'], url: fetched.url }
  }
}

/** The sitemaps robots.txt names, or /sitemap.xml when it names none. */
export function sitemapStarts(sitemaps: readonly string[], origin: string): string[] {
  const named = sitemaps.filter((s) => onSite(s, origin, true))
  return named.length > 0 ? named : [`${origin}/sitemap.xml`]
}

export function readSitemaps(
  config: Pick<Config, 'allowPrivateNetwork'>,
  origin: string,
  starts: string[],
  maxUrls: number,
  deadline: number,
): Promise<CollectedSitemaps> {
  return collectSitemaps(starts, sitemapFetcher(config, origin), { maxDepth: 3, maxSitemaps: 50, maxUrls, deadline })
}
