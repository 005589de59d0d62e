import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { detectWikipediaBlock } from './wikipedia.block.ts'
import { apiErrorOf, articleUrl, parseWikipediaSearch } from './wikipedia.parse.ts'

const DIR = 'serp/wikipedia'
const read = (f: string) => readFixture(`${DIR}/${f}`).toString('utf8')
const API_URL = 'https://en.wikipedia.org/w/api.php'

// What each real capture holds, checked by reading the files.
const EXPECTED: Record<string, { quality: string; count: number; total?: number; first?: { title: string; link: string } }> = {
  'api/android-full-text-search-empty.json': { quality: 'empty', count: 0 },
  'api/android-full-text-search-generator.json': {
    quality: 'ok',
    count: 20,
    first: { title: 'IND Queens Boulevard Line', link: 'https://en.wikipedia.org/wiki/IND_Queens_Boulevard_Line' },
  },
  'api/android-prefix-search-generator.json': { quality: 'ok', count: 20, first: { title: 'Narthecium', link: 'https://en.wikipedia.org/wiki/Narthecium' } },
  'html-search/aql-commons-mediasearch-nito.html': {
    quality: 'ok',
    count: 40,
    total: 11300,
    first: { title: 'File:NITO 1936.jpg', link: 'https://commons.wikimedia.org/wiki/File:NITO_1936.jpg' },
  },
  'html-search/aql-commons-search-oxygen.html': {
    quality: 'ok',
    count: 20,
    total: 55734,
    first: { title: 'Oxygen', link: 'https://commons.wikimedia.org/wiki/Oxygen' },
  },
  'rest/android-page-summary-fermat.json': {
    quality: 'ok',
    count: 1,
    first: { title: "Fermat's Last Theorem", link: "https://en.wikipedia.org/wiki/Fermat's_Last_Theorem" },
  },
}

const pageFixtures = listFixtures(DIR, true).filter((f) => !f.startsWith('autocomplete/'))

describe('Wikipedia fixtures', () => {
  it('every real capture is listed here', () => {
    expect(pageFixtures.sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  for (const file of pageFixtures) {
    it(`${file}: quality, result count and first result`, () => {
      const want = EXPECTED[file]!
      const page = parseWikipediaSearch(read(file))
      expect(page.parse_quality).toBe(want.quality)
      expect(page.results).toHaveLength(want.count)
      expect(page.total_results).toBe(want.total)
      if (want.first) expect(page.results[0]).toMatchObject(want.first)
      for (const [i, r] of page.results.entries()) {
        expect(r.position).toBe(i + 1)
        expect(r.title).toBeTruthy()
        expect(r.link).toMatch(/^https:\/\/(en\.wikipedia|commons\.wikimedia)\.org\/wiki\//)
        expect(r.domain).toBe(new URL(r.link).hostname)
      }
      expect(detectWikipediaBlock({ status: 200, url: API_URL, body: read(file) })).toBeNull()
    })
  }
})

describe('Action API answers', () => {
  it('generator pages come in search rank (index), not in page-id order', () => {
    const page = parseWikipediaSearch(read('api/android-full-text-search-generator.json'))
    expect(page.results.slice(0, 4).map((r) => r.title)).toEqual([
      'IND Queens Boulevard Line',
      'Queens Boulevard',
      'Queens',
      'Kew Gardens–Union Turnpike (IND Queens Boulevard Line)',
    ])
    // pageterms' short description is the snippet when there is nothing better.
    expect(page.results[2]).toEqual({
      position: 3,
      title: 'Queens',
      link: 'https://en.wikipedia.org/wiki/Queens',
      domain: 'en.wikipedia.org',
      snippet: 'borough of New York City, New York, United States',
    })
    expect(page.results[3]?.link).toBe('https://en.wikipedia.org/wiki/Kew_Gardens%E2%80%93Union_Turnpike_(IND_Queens_Boulevard_Line)')
  })

  it('a one-item list=search beside a generator does not cut the answer', () => {
    const page = parseWikipediaSearch(read('api/android-prefix-search-generator.json'))
    expect(page.results).toHaveLength(20)
    expect(page.results[2]).toMatchObject({ position: 3, title: 'Abama Open de Canarias' })
  })

  it('merges list=search and the generator: order, timestamp and total from the list, extract and URL from the page', () => {
    const body = JSON.stringify({
      batchcomplete: true,
      continue: { sroffset: 12, gsroffset: 12, continue: 'gsroffset||' },
      query: {
        searchinfo: { totalhits: 4821 },
        search: [
          {
            ns: 0,
            title: 'Oxygen',
            pageid: 22303,
            snippet: '<span class="searchmatch">Oxygen</span> is a chemical element',
            timestamp: '2026-03-01T10:00:00Z',
          },
          { ns: 0, title: 'Ozone', pageid: 22800, snippet: 'a form of <span class="searchmatch">oxygen</span> &amp; more', timestamp: '2026-02-11T08:30:00Z' },
          { ns: 0, title: "Fermat's Last Theorem", pageid: 19021953, snippet: 'x', timestamp: '2026-01-05T00:00:00Z' },
        ],
        pages: [
          { pageid: 22800, ns: 0, title: 'Ozone', index: 12, description: 'Allotrope of oxygen', fullurl: 'https://en.wikipedia.org/wiki/Ozone' },
          {
            pageid: 22303,
            ns: 0,
            title: 'Oxygen',
            index: 11,
            extract: 'Oxygen is a chemical element; it has symbol O and atomic number 8.\nIt is a member of the chalcogen group.',
            fullurl: 'https://en.wikipedia.org/wiki/Oxygen',
            description: 'Chemical element with atomic number 8',
          },
          { pageid: 19021953, ns: 0, title: "Fermat's Last Theorem", index: 13, extract: '' },
        ],
      },
    })
    const page = parseWikipediaSearch(body, { lang: 'en' })
    expect(page).toEqual({
      results: [
        {
          position: 1,
          title: 'Oxygen',
          link: 'https://en.wikipedia.org/wiki/Oxygen',
          domain: 'en.wikipedia.org',
          snippet: 'Oxygen is a chemical element; it has symbol O and atomic number 8. It is a member of the chalcogen group.',
          date: '2026-03-01T10:00:00Z',
        },
        // Past the 20 extracts TextExtracts gives, the match snippet stands in.
        {
          position: 2,
          title: 'Ozone',
          link: 'https://en.wikipedia.org/wiki/Ozone',
          domain: 'en.wikipedia.org',
          snippet: 'a form of oxygen & more',
          date: '2026-02-11T08:30:00Z',
        },
        {
          position: 3,
          title: "Fermat's Last Theorem",
          link: 'https://en.wikipedia.org/wiki/Fermat%27s_Last_Theorem',
          domain: 'en.wikipedia.org',
          snippet: 'x',
          date: '2026-01-05T00:00:00Z',
        },
      ],
      parse_quality: 'ok',
      total_results: 4821,
    })
  })

  it('builds links on the wiki of the request language', () => {
    const body =
      '{"batchcomplete":true,"query":{"searchinfo":{"totalhits":1},"search":[{"ns":0,"title":"São Paulo","pageid":390,"snippet":"","timestamp":"2026-01-01T00:00:00Z"}]}}'
    expect(parseWikipediaSearch(body, { lang: 'pt' }).results[0]).toMatchObject({
      link: 'https://pt.wikipedia.org/wiki/S%C3%A3o_Paulo',
      domain: 'pt.wikipedia.org',
    })
  })

  it('formatversion 1 pages (an object keyed by page id) are read too; missing pages are skipped', () => {
    const body = '{"query":{"pages":{"2":{"pageid":2,"title":"B","index":2},"1":{"pageid":1,"title":"A","index":1},"-1":{"title":"Gone","missing":""}}}}'
    expect(parseWikipediaSearch(body).results.map((r) => [r.position, r.title])).toEqual([
      [1, 'A'],
      [2, 'B'],
    ])
  })

  it('no hits is empty; an error or an unknown shape is partial', () => {
    expect(parseWikipediaSearch('{"batchcomplete":true,"query":{"searchinfo":{"totalhits":0},"search":[]}}')).toEqual({
      results: [],
      parse_quality: 'empty',
      total_results: 0,
      saysNoResults: true,
    })
    expect(parseWikipediaSearch('{"error":{"code":"badvalue","info":"x"}}').parse_quality).toBe('partial')
    expect(parseWikipediaSearch('{"hello":1}').parse_quality).toBe('partial')
    expect(parseWikipediaSearch('not json').parse_quality).toBe('partial')
  })
})

describe('apiErrorOf', () => {
  it('reads the error object and nothing else', () => {
    expect(apiErrorOf('{"error":{"code":"maxlag","info":"Waiting for a database server: 6 seconds lagged."},"servedby":"mw1"}')).toEqual({
      code: 'maxlag',
      info: 'Waiting for a database server: 6 seconds lagged.',
    })
    expect(apiErrorOf(read('api/android-full-text-search-generator.json'))).toBeUndefined()
    expect(apiErrorOf('<html></html>')).toBeUndefined()
  })
})

describe('articleUrl', () => {
  it('uses underscores and escapes as MediaWiki does', () => {
    expect(articleUrl('https://en.wikipedia.org', 'Rust (programming language)')).toBe('https://en.wikipedia.org/wiki/Rust_(programming_language)')
    expect(articleUrl('https://en.wikipedia.org', 'AC/DC: Live, 1992')).toBe('https://en.wikipedia.org/wiki/AC/DC:_Live,_1992')
    expect(articleUrl('https://en.wikipedia.org', 'C++ & "X"?')).toBe('https://en.wikipedia.org/wiki/C%2B%2B_%26_%22X%22%3F')
  })
})

describe('detectWikipediaBlock', () => {
  it('flags HTTP 429, rate-limit and maxlag errors, and the robot-policy 403', () => {
    expect(detectWikipediaBlock({ status: 429, url: API_URL, body: '' })?.reason).toBe('HTTP 429 from Wikimedia')
    expect(
      detectWikipediaBlock({ status: 200, url: API_URL, body: '{"error":{"code":"ratelimited","info":"You\'ve exceeded your rate limit."}}' })?.reason,
    ).toBe('Wikimedia API error ratelimited')
    expect(detectWikipediaBlock({ status: 200, url: API_URL, body: '{"error":{"code":"maxlag","info":"lagged"}}' })?.reason).toBe('Wikimedia API error maxlag')
    const policy = 'Please set a user-agent and respect our robot policy https://w.wiki/4wJS. See also T400119.'
    expect(detectWikipediaBlock({ status: 403, url: API_URL, body: policy })?.reason).toBe('Wikimedia refused the client (robot policy)')
  })

  it('other API errors and result pages mentioning errors are not blocks', () => {
    expect(detectWikipediaBlock({ status: 200, url: API_URL, body: '{"error":{"code":"badvalue","info":"x"}}' })).toBeNull()
    const body = '{"query":{"search":[{"title":"Robot policy","snippet":"\\"error\\": ratelimited user-agent","pageid":1}]}}'
    expect(detectWikipediaBlock({ status: 200, url: API_URL, body })).toBeNull()
  })
})
