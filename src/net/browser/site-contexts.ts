import type { BrowserContext, Page } from 'playwright-core'
import { getDomain } from 'tldts'

/**
 * Browser contexts kept per site, so the pages of one site share a context (its cache, its
 * cookies, a warm renderer) while no two sites ever do (docs/rendering.md):
 * - a site is the scheme plus the registrable domain (Public Suffix List, private section
 *   included, so alice.github.io and bob.github.io are two sites); an IP address or a single-label
 *   host is its own site. The port does not count, as for cookies;
 * - a context serves pages of its own site only, several at once if they come together;
 * - at most `max` contexts are kept; a new site takes the place of the least recently used idle
 *   one, which is closed, never wiped and handed over: a fresh context carries nothing, HTTP
 *   cache included, from the site before;
 * - a context whose page ended on another site, or failed, is closed instead of kept;
 * - the tab of a page that was read is kept open (one per context) and the site's next page is
 *   loaded in it: a same-site navigation keeps the tab's renderer process, where a new tab starts
 *   one.
 */

export function siteOf(url: string): string {
  const u = new URL(url)
  const host = u.hostname.replace(/\.+$/, '').toLowerCase()
  return `${u.protocol}//${getDomain(host, { allowPrivateDomains: true }) ?? host}`
}

export interface SiteLease {
  context: BrowserContext
  /** The context was kept from an earlier page of the site. */
  reused: boolean
  /** A tab for `url`: the context's kept one, else a new one. */
  page(url: string): Promise<Page>
  /**
   * `keep: false` closes the context once its other pages end (the page left its site, or failed);
   * `page` is kept for the next page of the site when `keep`, else closed.
   */
  release(keep: boolean, page: Page | null): void
}

interface Entry {
  site: string
  context: Promise<BrowserContext>
  pages: number
  /** Closed when its last page ends, and given to no new page. */
  retired: boolean
  /** A tab left open by the last page read, for the next one. */
  spare: Page | null
}

export class SiteContexts {
  /** In use order: the first idle entry is the least recently used. */
  private readonly entries = new Map<string, Entry>()

  constructor(
    private readonly open: () => Promise<BrowserContext>,
    private readonly max: number,
  ) {}

  get size(): number {
    return this.entries.size
  }

  async acquire(site: string): Promise<SiteLease> {
    let entry = this.entries.get(site)
    const reused = entry !== undefined
    if (entry) this.entries.delete(site)
    else {
      this.evict()
      // Every kept context busy with other sites (more sites at once than `max`): a context of
      // its own for this page, closed after it.
      const kept = this.entries.size < this.max
      entry = { site, context: this.open(), pages: 0, retired: !kept, spare: null }
    }
    const e = entry
    if (!e.retired) this.entries.set(site, e)
    e.pages++
    try {
      const context = await e.context
      return { context, reused, page: (url) => this.page(e, context, url), release: (keep, page) => this.release(e, keep, page) }
    } catch (err) {
      this.release(e, false, null)
      throw err
    }
  }

  private page(entry: Entry, context: BrowserContext, url: string): Promise<Page> {
    const spare = entry.spare
    entry.spare = null
    // Only the fragment changing would be a same-document navigation: no load, nothing drawn anew.
    if (spare && !spare.isClosed() && withoutHash(spare.url()) !== withoutHash(url)) return Promise.resolve(spare)
    if (spare) void spare.close().catch(() => {})
    return context.newPage()
  }

  private release(entry: Entry, keep: boolean, page: Page | null) {
    entry.pages--
    if (page) {
      if (keep && !entry.retired && !entry.spare && !page.isClosed()) entry.spare = page
      else void page.close().catch(() => {})
    }
    if (!keep && !entry.retired) {
      entry.retired = true
      if (this.entries.get(entry.site) === entry) this.entries.delete(entry.site)
    }
    if (entry.retired && entry.pages === 0) close(entry)
  }

  /** Closes least recently used idle contexts until there is room for one more. */
  private evict() {
    for (const entry of this.entries.values()) {
      if (this.entries.size < this.max) return
      if (entry.pages > 0) continue
      this.entries.delete(entry.site)
      entry.retired = true
      close(entry)
    }
  }
}

const withoutHash = (url: string) => url.replace(/#.*$/, '')

function close(entry: Entry) {
  void entry.context.then((c) => c.close()).catch(() => {})
}
