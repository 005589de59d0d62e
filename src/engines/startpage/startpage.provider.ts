import type { ParsedSearchPage } from '../engine.types.ts'
import { anubisGate } from '../gates/anubis.gate.ts'
import type { Provider } from '../provider.types.ts'
import { detectStartpageBlock } from './startpage.block.ts'
import { parseStartpage } from './startpage.parse.ts'
import { buildStartpageRequest } from './startpage.request.ts'
import { forgetStartpageSc, startpageSc } from './startpage.sc.ts'

/** Startpage (Google's index through Startpage): web search by form POST with its `sc` code. */
export const startpageProvider: Provider<'startpage'> = {
  name: 'startpage',
  capabilities: { verticals: ['search'], params: ['page', 'time', 'safe'], siteOperator: true },
  search: {
    async run(req, fetch) {
      const sc = await startpageSc(fetch, req.language)
      const { url, headers, form, skip } = buildStartpageRequest(req, sc)
      let body: string
      try {
        body = (await fetch(url, headers, undefined, form)).body
      } catch (e) {
        // A stale code may be why the search was refused: fetch a fresh one next time.
        forgetStartpageSc()
        throw e
      }
      const page = parseStartpage(body)
      // A page that is neither results nor "no results" may be a refused code too.
      if (page.results.length === 0 && page.parse_quality === 'partial') forgetStartpageSc()
      return dropLeading(page, skip)
    },
  },
  verticals: {},
  detectBlock: (r) => detectStartpageBlock(r),
  // Startpage's search sits behind an Anubis proof-of-work page (searxng/searxng PR #6669).
  gate: anubisGate,
}

/** Results from the requested offset on (Startpage pages by 10 or 20), renumbered from 1. */
function dropLeading(page: ParsedSearchPage, skip: number): ParsedSearchPage {
  if (skip === 0) return page
  const results = page.results.slice(skip).map((r, i) => ({ ...r, position: i + 1 }))
  return { ...page, results, parse_quality: results.length === 0 && page.parse_quality === 'ok' ? 'empty' : page.parse_quality }
}
