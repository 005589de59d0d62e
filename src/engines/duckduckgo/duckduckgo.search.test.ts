import { beforeEach, describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import { readFixture } from '../../../test/support/fixtures.ts'
import { ApiError } from '../../errors.ts'
import type { SearchRequest } from '../engine.types.ts'
import type { EngineFetch } from '../provider.types.ts'
import { duckduckgoProvider } from './duckduckgo.provider.ts'
import { clearDuckDuckGoTokens, duckDuckGoDjsRoute, duckDuckGoHtmlRoute, duckDuckGoLiteRoute } from './duckduckgo.search.ts'

const duckDuckGoSearch = duckDuckGoHtmlRoute

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

describe('route html', () => {
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
    expect(page).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
    const short: Call[] = []
    expect(await duckDuckGoSearch.run(req({ page: 2 }), fakeDdg(short, 8))).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
    expect(short).toHaveLength(1)
  })

  it('stops after MAX_FETCHES with what it has', async () => {
    const calls: Call[] = []
    const page = await duckDuckGoSearch.run(req({ num: 100 }), fakeDdg(calls, 1000))
    expect(calls.length).toBeLessThanOrEqual(8)
    expect(page.results).toHaveLength(100)
  })

  it('a JS shell or an unknown page is partial with nothing read (the engine layer then asks the next route)', async () => {
    const calls: Call[] = []
    const fetch: EngineFetch = async (url, _h, _d, form) => {
      calls.push({ url, form })
      return { status: 200, url, body: fixture('web-js-shell/aql-what-happened-to-greta-thornburg.html') }
    }
    expect(await duckDuckGoSearch.run(base, fetch)).toEqual({ results: [], parse_quality: 'partial' })
    expect(calls.map((c) => c.url)).toEqual(['https://html.duckduckgo.com/html/'])
  })

  it('sends a !bang query quoted', async () => {
    const calls: Call[] = []
    await duckDuckGoSearch.run(req({ q: '!w rust programming' }), fakeDdg(calls))
    expect(calls[0]?.form?.q).toBe("'!w' rust programming")
  })

  it('refuses over-long queries before any fetch', async () => {
    const fetch: EngineFetch = async () => {
      throw new Error('no fetch expected')
    }
    await expect(duckDuckGoSearch.run(req({ q: 'x'.repeat(600) }), fetch)).rejects.toBeInstanceOf(ApiError)
  })
})

describe('route lite', () => {
  it('posts the same form to lite.duckduckgo.com and reads the lite layout', async () => {
    const calls: Call[] = []
    const fetch: EngineFetch = async (url, _h, detectBlock, form) => {
      calls.push({ url, form })
      expect(detectBlock?.({ status: 200, url, body: fixture('blocked/ddgcli-anomaly-challenge-2026.html') })).toEqual({
        reason: 'DuckDuckGo challenge page (anomaly)',
      })
      return { status: 200, url, body: fixture('lite/ddgcli-rust-programming-2026.body.html') }
    }
    const page = await duckDuckGoLiteRoute.run(base, fetch)
    expect(calls).toEqual([{ url: 'https://lite.duckduckgo.com/lite/', form: { q: 'rust programming', b: '', kl: 'us-en', kp: '-2' } }])
    expect(page.parse_quality).toBe('ok')
    expect(page.results[0]).toMatchObject({ title: 'Rust Programming Language', link: 'https://rust-lang.org/' })
  })
})

const SHELL = 'web-js-shell/rust-programming-preload.constructed.html'
const DJS_S0 = 'djs/rust-programming-s0.constructed.js'
const DJS_S10 = 'djs/rust-programming-s10.constructed.js'

interface Get {
  url: string
  headers: Record<string, string>
  form?: Record<string, string>
}

/** A fake duckduckgo.com and links.duckduckgo.com: the constructed shell, then d.js by its `s`. */
function fakeDjs(calls: Get[], bodies: Partial<Record<'shell' | 's0' | 's10', string>> = {}): EngineFetch {
  return async (url, headers, detectBlock, form) => {
    calls.push({ url, headers, form })
    const u = new URL(url)
    // Every fetch brings a detector that knows the anomaly page.
    expect(detectBlock?.({ status: 200, url, body: fixture('blocked/ddgcli-anomaly-challenge-2026.html') })).not.toBeNull()
    if (u.hostname === 'duckduckgo.com' && u.pathname === '/') return { status: 200, url, body: bodies.shell ?? fixture(SHELL) }
    if (u.hostname === 'links.duckduckgo.com' && u.pathname === '/d.js') {
      const s = u.searchParams.get('s')
      const body = s === '0' ? (bodies.s0 ?? fixture(DJS_S0)) : s === '10' ? (bodies.s10 ?? fixture(DJS_S10)) : undefined
      if (body !== undefined) return { status: 200, url, body }
    }
    throw new Error(`unexpected fetch ${url}`)
  }
}

describe('route djs', () => {
  it('GETs the shell, then the d.js URL it preloads, as given; reads the results', async () => {
    const calls: Get[] = []
    const page = await duckDuckGoDjsRoute.run(base, fakeDjs(calls))
    expect(calls.map((c) => c.url)).toEqual([
      'https://duckduckgo.com/?q=rust+programming&t=h_&ia=web&kl=us-en&kp=-2',
      expect.stringMatching(
        /^https:\/\/links\.duckduckgo\.com\/d\.js\?q=rust%20programming&t=h_&l=us-en&s=0&a=h_&ct=US&vqd=4-\d+&bing_market=en-US&p_ent=&ex=-2&dp=[\w.-]+&sp=0$/,
      ),
    ])
    expect(calls.every((c) => c.form === undefined)).toBe(true)
    expect(calls[0]?.headers).toMatchObject({ 'Sec-Fetch-Dest': 'document', 'Sec-Fetch-Mode': 'navigate', Referer: 'https://duckduckgo.com/' })
    expect(calls[1]?.headers).toMatchObject({
      Accept: '*/*',
      'Sec-Fetch-Dest': 'script',
      'Sec-Fetch-Mode': 'no-cors',
      'Sec-Fetch-Site': 'same-site',
      Referer: 'https://duckduckgo.com/',
    })
    expect(calls[1]?.headers['User-Agent']).toBe(calls[0]?.headers['User-Agent'])
    expect(page.parse_quality).toBe('ok')
    // 11 entries: the ad (a y.js link) and the `n` entry are left out.
    expect(page.results).toHaveLength(10)
    expect(page.results.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(page.results[1]).toEqual({
      position: 2,
      title: 'Rust (programming language) - Wikipedia',
      link: 'https://en.wikipedia.org/wiki/Rust_(programming_language)',
      domain: 'en.wikipedia.org',
      displayed_link: 'en.wikipedia.org/wiki/Rust_(programming_language)',
      snippet: 'Rust is a general-purpose programming language. It is noted for its emphasis on performance, type safety, concurrency, and memory safety.',
    })
    for (const r of page.results) expect(r.link).not.toMatch(/duckduckgo\.com|y\.js/)
  })

  it('the d.js fetch refuses its own blocks (anomaly script, JavaScript challenge)', async () => {
    const detectors: ((r: { status: number; url: string; body: string }) => { reason: string } | null)[] = []
    const fetch: EngineFetch = async (url, headers, detectBlock, form) => {
      if (detectBlock) detectors.push(detectBlock)
      return fakeDjs([])(url, headers, detectBlock, form)
    }
    await duckDuckGoDjsRoute.run(base, fetch)
    const [shell, djs] = detectors
    const challenge = "let jsa = 30;DDG.deep.initialize('/d.js?q=rust&s=0&vqd=4-1&jsa=');"
    expect(djs?.({ status: 200, url: 'https://links.duckduckgo.com/d.js?q=rust', body: challenge })).toEqual({ reason: 'DuckDuckGo d.js JavaScript challenge' })
    expect(djs?.({ status: 200, url: 'https://links.duckduckgo.com/d.js?q=rust', body: 'DDG.deep.anomalyDetectionBlock({"x":1});' })).toEqual({
      reason: 'DuckDuckGo d.js anomaly block',
    })
    expect(djs?.({ status: 200, url: 'https://links.duckduckgo.com/d.js?q=rust', body: fixture(DJS_S0) })).toBeNull()
    // The 2022 shells call DDG.deep.initialize themselves: not a block on the shell.
    expect(shell?.({ status: 200, url: 'https://duckduckgo.com/?q=x', body: fixture('web-js-shell/aql-c-pretty-print-json.html') })).toBeNull()
  })

  it('num=20 follows the n link of the last entry; the EOF marker ends the list', async () => {
    const calls: Get[] = []
    const page = await duckDuckGoDjsRoute.run(req({ num: 20 }), fakeDjs(calls))
    expect(calls).toHaveLength(3)
    expect(new URL(calls[2]?.url ?? '').searchParams.get('s')).toBe('10')
    expect(calls[2]?.url).toMatch(/^https:\/\/links\.duckduckgo\.com\/d\.js\?q=rust%20programming&t=D&/)
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toHaveLength(13)
    expect(page.results.slice(10).map((r) => [r.position, r.link])).toEqual([
      [11, 'https://doc.rust-lang.org/rust-by-example/'],
      [12, 'https://doc.rust-lang.org/book/'],
      [13, 'https://github.com/rust-lang/rust'],
    ])
  })

  it('page 2 walks from the shell, then reuses the kept link to the page of a later request', async () => {
    const calls: Get[] = []
    const page = await duckDuckGoDjsRoute.run(req({ page: 2 }), fakeDjs(calls))
    expect(calls.map((c) => new URL(c.url).hostname)).toEqual(['duckduckgo.com', 'links.duckduckgo.com', 'links.duckduckgo.com'])
    expect(page.results.map((r) => r.link)).toEqual([
      'https://doc.rust-lang.org/rust-by-example/',
      'https://doc.rust-lang.org/book/',
      'https://github.com/rust-lang/rust',
    ])
    expect(page.results[0]?.position).toBe(1)
    const again: Get[] = []
    await duckDuckGoDjsRoute.run(req({ page: 2 }), fakeDjs(again))
    expect(again.map((c) => c.url)).toEqual([calls[2]?.url])
    // Page 1 again starts from the kept preload link, without the shell.
    const first: Get[] = []
    await duckDuckGoDjsRoute.run(base, fakeDjs(first))
    expect(first.map((c) => c.url)).toEqual([calls[1]?.url])
    // Other settings are another query.
    const other: Get[] = []
    await duckDuckGoDjsRoute.run(req({ page: 2, time: 'week' }), fakeDjs(other))
    expect(other[0]?.url).toBe('https://duckduckgo.com/?q=rust+programming&t=h_&ia=web&kl=us-en&kp=-2&df=w')
  })

  it('a kept link that fails is forgotten: the next search starts from the shell again', async () => {
    await duckDuckGoDjsRoute.run(base, fakeDjs([]))
    const refused: EngineFetch = async (url) => {
      throw new Error(`refused ${url}`)
    }
    await expect(duckDuckGoDjsRoute.run(base, refused)).rejects.toThrow(/refused https:\/\/links\.duckduckgo\.com\/d\.js/)
    const calls: Get[] = []
    await duckDuckGoDjsRoute.run(base, fakeDjs(calls))
    expect(calls.map((c) => new URL(c.url).hostname)).toEqual(['duckduckgo.com', 'links.duckduckgo.com'])
    // So is one whose answer is no longer a results script.
    await duckDuckGoDjsRoute.run(base, fakeDjs([], { s0: 'DDG.deep.is506=true;' }))
    const after: Get[] = []
    await duckDuckGoDjsRoute.run(base, fakeDjs(after))
    expect(after).toHaveLength(2)
  })

  it('past the last result the page is empty', async () => {
    const page = await duckDuckGoDjsRoute.run(req({ page: 3 }), fakeDjs([]))
    expect(page).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
  })

  it('a shell that names no d.js, or a d.js with no results call, is partial (unreadable), never empty', async () => {
    const calls: Get[] = []
    expect(await duckDuckGoDjsRoute.run(base, fakeDjs(calls, { shell: '<html><body><p>Something else</p></body></html>' }))).toEqual({
      results: [],
      parse_quality: 'partial',
    })
    expect(calls).toHaveLength(1)
    clearDuckDuckGoTokens()
    expect(await duckDuckGoDjsRoute.run(base, fakeDjs([], { s0: 'DDG.deep.is506=true;' }))).toEqual({ results: [], parse_quality: 'partial' })
  })

  it('reads the d.js link of a 2022 shell (DDG.deep.initialize) on links.duckduckgo.com', async () => {
    const calls: Get[] = []
    const fetch: EngineFetch = async (url, headers) => {
      calls.push({ url, headers })
      if (calls.length === 1) return { status: 200, url, body: fixture('web-js-shell/aql-c-pretty-print-json.html') }
      return { status: 200, url, body: fixture(DJS_S10) }
    }
    const page = await duckDuckGoDjsRoute.run(req({ q: 'c# pretty print json' }), fetch)
    expect(calls[0]?.url).toBe('https://duckduckgo.com/?q=c%23+pretty+print+json&t=h_&ia=web&kl=us-en&kp=-2')
    expect(calls[1]?.url).toBe(
      'https://links.duckduckgo.com/d.js?q=c%23%20pretty%20print%20json&l=us-en&s=0&a=ffab&dl=en&ct=US&ss_mkt=us&vqd=3-294169019894484628037204953213753303964-11542305777159290270094519813783021629&p_ent=&ex=-1&sp=1',
    )
    expect(page.results).toHaveLength(3)
  })

  it('sends a !bang query quoted, and refuses over-long queries before any fetch', async () => {
    const calls: Get[] = []
    await duckDuckGoDjsRoute.run(req({ q: 'rust !g programming' }), fakeDjs(calls))
    expect(new URL(calls[0]?.url ?? '').searchParams.get('q')).toBe("rust '!g' programming")
    const none: EngineFetch = async () => {
      throw new Error('no fetch expected')
    }
    await expect(duckDuckGoDjsRoute.run(req({ q: 'x'.repeat(600) }), none)).rejects.toBeInstanceOf(ApiError)
  })
})

describe('duckduckgoProvider', () => {
  it('declares web search and autocomplete, page, time and safe, and site:', () => {
    expect(duckduckgoProvider.name).toBe('duckduckgo')
    expect(duckduckgoProvider.capabilities).toEqual({ verticals: ['search', 'autocomplete'], params: ['page', 'time', 'safe'], siteOperator: true })
    expect(Object.keys(duckduckgoProvider.verticals)).toEqual(['autocomplete'])
  })

  it('tries its routes in order html, lite, djs; each takes every parameter of the provider', () => {
    const routes = [duckduckgoProvider.search, ...(duckduckgoProvider.fallbackRoutes ?? [])]
    expect(routes.map((r) => r.route)).toEqual(['html', 'lite', 'djs'])
    for (const r of routes) {
      expect(r.params).toBeUndefined()
      expect(r.unavailable).toBeUndefined()
    }
  })
})
