import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { readFixture } from '../../../test/support/fixtures.ts'
import { parseBingSearch } from '../bing/bing.parse.ts'
import { parseBingImages } from '../bing/images/bing-images.parse.ts'
import { parseDuckDuckGoPage } from '../duckduckgo/duckduckgo.parse.ts'
import { parseGoogleSearch } from '../google/google-search.parse.ts'
import { parseMojeekSearch } from '../mojeek/mojeek.parse.ts'
import { parseMediaWikiSearchHtml } from '../wikipedia/wikipedia-html.parse.ts'

/**
 * The parsers' output on every saved page of their engine, against what they read before the
 * parse-speed work (docs/performance.md: htmlparser2 trees with script and style content dropped, an element
 * index and compiled selectors instead of cheerio queries). The golden was written by the parsers
 * as they were; a change here is a change in what a page yields, to be made on purpose.
 */
const GOLDEN = JSON.parse(readFileSync(new URL('./serp-parse.golden.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>

const PARSERS: Record<string, (html: string) => unknown> = {
  google: (html) => parseGoogleSearch(html, { includeAds: true }),
  bing: (html) => parseBingSearch(html),
  bingimages: (html) => parseBingImages(html),
  ddg: (html) => parseDuckDuckGoPage(html),
  mojeek: (html) => parseMojeekSearch(html),
  mediawiki: (html) => parseMediaWikiSearchHtml(html, 'https://en.wikipedia.org'),
}

/** Quality, each result's title and link, and the size (or title) of each feature. */
function summarize(page: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { quality: page.parse_quality }
  out.results = ((page.results as Record<string, unknown>[]) ?? []).map((r) => [r.title ?? '', r.link ?? r.original ?? ''])
  for (const key of ['people_also_ask', 'related_searches', 'top_stories', 'places', 'knowledge_graph', 'answer_box', 'total_results']) {
    const v = page[key]
    if (v === undefined) continue
    if (Array.isArray(v)) out[key] = v.length
    else if (v && typeof v === 'object') out[key] = (v as Record<string, unknown>).title ?? (v as Record<string, unknown>).type ?? true
    else out[key] = v
  }
  return out
}

describe('every saved page parses as it did before the speed work', () => {
  it('covers every engine whose parser changed', () => {
    expect(Object.keys(GOLDEN).sort()).toEqual(Object.keys(PARSERS).sort())
    expect(Object.keys(GOLDEN.google ?? {}).length).toBeGreaterThan(30)
  })

  for (const [name, pages] of Object.entries(GOLDEN)) {
    it.each(Object.keys(pages))(`${name}: %s`, (path) => {
      const parse = PARSERS[name] as (html: string) => unknown
      const page = parse(readFixture(path).toString('utf8')) as Record<string, unknown>
      expect(summarize(page)).toEqual(pages[path])
    })
  }
})
