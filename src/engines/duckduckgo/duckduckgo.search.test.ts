import { beforeEach, describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import { readFixture } from '../../../test/support/fixtures.ts'
import { ApiError } from '../../errors.ts'
import type { EngineFetch } from '../engine.ts'
import type { SearchRequest } from '../engine.types.ts'
import { duckduckgoProvider } from './duckduckgo.provider.ts'
import { clearDuckDuckGoTokens, duckDuckGoSearch } from './duckduckgo.search.ts'

const base = searchRequest({ engine: 'duckduckgo', q: 'rust programming' })
const req = (r: Partial<SearchRequest> = {}): SearchRequest => ({ ...base, ...r })
const fixture = (f: string) => readFixture(`serp/duckduckgo/${f}`).toString('utf8')

/** An html page of results `from`..`from+count-1` (as example.com/r<i>) with a Next form to `next`. */
function htmlPage(from: number, count: number, next?: number): string {
  const results = Array.from(
    { length: count },
    (_, i) =>
      `<div class="result results_links web-result"><h2 class="result__title"><a class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(`https://example.com/r${from + i}`)}">Result ${from + i}</a></h2><a class="result__snippet">S</a></div>`,
  ).join('')
  const form =
    next === undefined
      ? ''
      : `<div class="nav-link"><form action="/html/" method="post"><input type="submit" value="Next"><input type="hidden" name="q" value="rust programming"><input type="hidden" name="s" value="${next}"><input type="hidden" name="nextParams" value=""><input type="hidden" name="v" value="l"><input type="hidden" name="o" value="json"><input type="hidden" name="dc" value="${next + 1}"><input type="hidden" name="api" value="d.js"><input type="hidden" name="vqd" value="4-777"><input name="kl" value="us-en" type="hidden"></form></div>`
  return `<html><body class="body--html"><div id="links" class="results">${results}${form}</div></body></html>`
}

interface Call {
  url: string
  form?: Record<string, string>
}

/** A fake DuckDuckGo: page 1 has 10 results, every later page 15 from the asked offset, 60 in all. */
function fakeDdg(calls: Call[], total = 60): EngineFetch {
  return async (url, _headers, detectBlock, form) => {
    calls.push({ url, form })
    expect(detectBlock?.({ status: 200, url, body: fixture('blocked/ddgcli-anomaly-challenge-2026.html') })).not.toBeNull()
    const s = Number(form?.s ?? 0)
    const size = s === 0 ? 10 : 15
    const count = Math.max(0, Math.min(size, total - s))
    const body = count ? htmlPage(s, count, s + count < total ? s + count : undefined) : fixture('html/eino-eino-page2-empty.html')
    return { status: 200, url, body }
  }
}

beforeEach(() => clearDuckDuckGoTokens())

describe('duckDuckGoSearch.run', () => {
  it('page 1 of num=10 is one POST of the search form', async () => {
    const calls: Call[] = []
    const page = await duckDuckGoSearch.run(base, fakeDdg(calls))
    expect(calls).toEqual([{ url: 'https://html.duckduckgo.com/html/', form: { q: 'rust programming', b: '', kl: 'us-en', kp: '-2' } }])
    expect(page.parse_quality).toBe('ok')
    expect(page.results.map((r) => r.link)).toEqual(Array.from({ length: 10 }, (_, i) => `https://example.com/r${i}`))
    expect(page.results.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  })

  it('num=30 follows the Next form as sent until the window is full', async () => {
    const calls: Call[] = []
    const page = await duckDuckGoSearch.run(req({ num: 30 }), fakeDdg(calls))
    expect(calls.map((c) => c.form?.s)).toEqual([undefined, '10', '25'])
    expect(calls[1]?.form).toEqual({
      q: 'rust programming',
      s: '10',
      nextParams: '',
      v: 'l',
      o: 'json',
      dc: '11',
      api: 'd.js',
      vqd: '4-777',
      kl: 'us-en',
      kp: '-2',
    })
    expect(page.results).toHaveLength(30)
    expect(page.results[29]).toMatchObject({ position: 30, link: 'https://example.com/r29' })
  })

  it('a deep page fetches page 1 for the token, then jumps to its offset', async () => {
    const calls: Call[] = []
    const page = await duckDuckGoSearch.run(req({ page: 3 }), fakeDdg(calls))
    expect(calls.map((c) => [c.form?.s, c.form?.dc, c.form?.vqd])).toEqual([
      [undefined, undefined, undefined],
      ['20', '21', '4-777'],
    ])
    expect(page.results.map((r) => r.link)).toEqual(Array.from({ length: 10 }, (_, i) => `https://example.com/r${20 + i}`))
    expect(page.results[0]?.position).toBe(1)
  })

  it('reuses the token of an earlier search of the same query, skipping page 1', async () => {
    await duckDuckGoSearch.run(base, fakeDdg([]))
    const calls: Call[] = []
    const page = await duckDuckGoSearch.run(req({ page: 2 }), fakeDdg(calls))
    expect(calls.map((c) => [c.form?.s, c.form?.vqd])).toEqual([['10', '4-777']])
    expect(page.results[0]?.link).toBe('https://example.com/r10')
    // Another query has no token yet.
    const other: Call[] = []
    await duckDuckGoSearch.run(req({ q: 'other', page: 2 }), fakeDdg(other))
    expect(other).toHaveLength(2)
  })

  it('honours an exact offset', async () => {
    const page = await duckDuckGoSearch.run(req({ offset: 5 }), fakeDdg([]))
    expect(page.results.map((r) => r.link)).toEqual(Array.from({ length: 10 }, (_, i) => `https://example.com/r${5 + i}`))
  })

  it('past the last result the page is empty', async () => {
    const calls: Call[] = []
    const page = await duckDuckGoSearch.run(req({ page: 9 }), fakeDdg(calls))
    expect(page).toEqual({ results: [], parse_quality: 'empty' })
    const short: Call[] = []
    expect(await duckDuckGoSearch.run(req({ page: 2 }), fakeDdg(short, 8))).toEqual({ results: [], parse_quality: 'empty' })
    expect(short).toHaveLength(1)
  })

  it('stops after MAX_FETCHES with what it has', async () => {
    const calls: Call[] = []
    const page = await duckDuckGoSearch.run(req({ num: 100 }), fakeDdg(calls, 1000))
    expect(calls.length).toBeLessThanOrEqual(8)
    expect(page.results).toHaveLength(100)
  })

  it('tries the lite endpoint once when the html page is unreadable', async () => {
    const calls: Call[] = []
    const fetch: EngineFetch = async (url, _h, _d, form) => {
      calls.push({ url, form })
      const body = url.includes('lite') ? fixture('lite/ddgcli-rust-programming-2026.body.html') : fixture('web-js-shell/aql-c-pretty-print-json.html')
      return { status: 200, url, body }
    }
    const page = await duckDuckGoSearch.run(base, fetch)
    expect(calls.map((c) => c.url)).toEqual(['https://html.duckduckgo.com/html/', 'https://lite.duckduckgo.com/lite/'])
    expect(page.parse_quality).toBe('ok')
    expect(page.results[0]).toMatchObject({ title: 'Rust Programming Language', link: 'https://rust-lang.org/' })
  })

  it('a JS shell from both endpoints is partial, never empty', async () => {
    const fetch: EngineFetch = async (url) => ({ status: 200, url, body: fixture('web-js-shell/aql-what-happened-to-greta-thornburg.html') })
    expect(await duckDuckGoSearch.run(base, fetch)).toEqual({ results: [], parse_quality: 'partial' })
  })

  it('refuses over-long queries before any fetch', async () => {
    const fetch: EngineFetch = async () => {
      throw new Error('no fetch expected')
    }
    await expect(duckDuckGoSearch.run(req({ q: 'x'.repeat(600) }), fetch)).rejects.toBeInstanceOf(ApiError)
  })
})

describe('duckduckgoProvider', () => {
  it('declares web search and autocomplete, time and safe, and site:', () => {
    expect(duckduckgoProvider.name).toBe('duckduckgo')
    expect(duckduckgoProvider.capabilities).toEqual({ verticals: ['search', 'autocomplete'], params: ['time', 'safe'], siteOperator: true })
    expect(Object.keys(duckduckgoProvider.verticals)).toEqual(['autocomplete'])
  })
})
