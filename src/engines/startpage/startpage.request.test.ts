import { afterEach, describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import { readFixture } from '../../../test/support/fixtures.ts'
import { searchRoute } from '../provider.routes.ts'
import type { EngineFetch } from '../provider.types.ts'
import { startpageProvider } from './startpage.provider.ts'
import { buildStartpageRequest, readScCode, startpageLanguage, startpageRegion } from './startpage.request.ts'
import { forgetStartpageSc, SC_TTL_MS, startpageSc } from './startpage.sc.ts'

const base = searchRequest({ engine: 'startpage', q: 'javascript tutorial' })
const HOME =
  '<html><body><form id="search" action="/sp/search" method="post"><input type="hidden" name="t" value="device"><input type="hidden" name="sc" value="Xy12ab34cd00"></form></body></html>'
const RESULTS = readFixture('serp/startpage/web/wsmcp-javascript-tutorial-http-2026.html').toString('utf8')

afterEach(() => forgetStartpageSc())

/** The `preferences` cookie's `key EEE value` pairs (joined by N1N), values as sent. */
const cookiePrefs = (cookie: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (cookie ?? '')
      .replace(/^preferences=/, '')
      .split('N1N')
      .map((p) => p.split('EEE') as [string, string]),
  )

describe('buildStartpageRequest', () => {
  it('posts the search form to /sp/search with the sc code', () => {
    const r = buildStartpageRequest(base, 'SC1')
    expect(r.url).toBe('https://www.startpage.com/sp/search')
    expect(r.form).toEqual({
      query: 'javascript tutorial',
      cat: 'web',
      t: 'device',
      sc: 'SC1',
      lui: 'english',
      language: 'english',
      abd: '1',
      abe: '1',
      qsr: 'all',
      qadf: 'none',
      with_date: '',
    })
    expect(r.skip).toBe(0)
  })

  it('never sends abp (an immediate CAPTCHA) and always asks qsr=all, the region going in the cookie', () => {
    for (const req of [base, { ...base, language: 'de', country: 'de', safe: 'active' as const, page: 3, time: 'week' as const }]) {
      const { form, headers } = buildStartpageRequest(req, 'x')
      expect(Object.keys(form)).not.toContain('abp')
      expect(form.qsr).toBe('all')
      expect(cookiePrefs(headers.Cookie).search_results_region).toBe(startpageRegion(req.language, req.country))
    }
  })

  it('sends the family filter as none or heavy, in the form and in the preferences', () => {
    const prefs = (safe: 'off' | 'active') => cookiePrefs(buildStartpageRequest({ ...base, safe }, 'x').headers.Cookie)
    expect(buildStartpageRequest(base, 'x').form.qadf).toBe('none')
    expect(prefs('off').disable_family_filter).toBe('none')
    expect(buildStartpageRequest({ ...base, safe: 'active' }, 'x').form.qadf).toBe('heavy')
    expect(prefs('active').disable_family_filter).toBe('heavy')
  })

  it('names languages as Startpage does: Japanese is nihongo', () => {
    const ja = buildStartpageRequest({ ...base, language: 'ja', country: 'jp' }, 'x')
    expect(ja.form).toMatchObject({ language: 'nihongo', lui: 'nihongo', qsr: 'all' })
    expect(cookiePrefs(ja.headers.Cookie)).toMatchObject({ language: 'nihongo', language_ui: 'nihongo', search_results_region: 'ja_JP' })
    expect(startpageLanguage('pt-BR')).toBe('brazilian')
    expect(startpageLanguage('pt')).toBe('portugues')
    expect(startpageLanguage('zh-TW')).toBe('fantizhengwen')
    expect(startpageLanguage('zh')).toBe('jiantizhongwen')
    expect(startpageLanguage('xx')).toBe('english')
  })

  it('sends Origin, Referer and the preferences cookie', () => {
    const { headers } = buildStartpageRequest({ ...base, language: 'de', country: 'de', safe: 'active', num: 20 }, 'SC1')
    expect(headers.Origin).toBe('https://www.startpage.com')
    expect(headers.Referer).toBe('https://www.startpage.com/')
    expect(headers['Accept-Language']).toBe('de,en;q=0.8')
    expect(cookiePrefs(headers.Cookie)).toMatchObject({
      language: 'deutsch',
      language_ui: 'deutsch',
      search_results_region: 'de_DE',
      disable_family_filter: 'heavy',
      num_of_results: '20',
      lang_homepage: 's%2Fdevice%2Fde%2F',
      enable_post_method: '1',
    })
  })

  it('maps time to with_date (hour becomes a day) and safe to qadf', () => {
    expect(buildStartpageRequest({ ...base, time: 'hour' }, 'x').form.with_date).toBe('d')
    expect(buildStartpageRequest({ ...base, time: 'week' }, 'x').form.with_date).toBe('w')
    expect(buildStartpageRequest({ ...base, time: 'month' }, 'x').form.with_date).toBe('m')
    expect(buildStartpageRequest({ ...base, time: 'year' }, 'x').form.with_date).toBe('y')
    expect(buildStartpageRequest({ ...base, safe: 'active' }, 'x').form.qadf).toBe('heavy')
  })

  it('pages with page and segment, 10 or 20 results a page', () => {
    const p2 = buildStartpageRequest({ ...base, page: 2 }, 'x')
    expect(p2.form).toMatchObject({ page: '2', segment: 'startpage.udog' })
    expect(buildStartpageRequest(base, 'x').form.page).toBeUndefined()
    const big = buildStartpageRequest({ ...base, num: 50, page: 2 }, 'x')
    expect(big.form.page).toBe('3')
    expect(big.skip).toBe(10)
  })

  it('picks the region of the language and country, else the country default, else all', () => {
    expect(startpageRegion('pt-BR', 'br')).toBe('pt-BR_BR')
    expect(startpageRegion('en', 'de')).toBe('de_DE')
    expect(startpageRegion('en', 'ke')).toBe('all')
  })
})

describe('the sc code', () => {
  it('is read from the home page search form', () => {
    expect(readScCode(HOME)).toBe('Xy12ab34cd00')
    expect(readScCode(RESULTS)).toBe('wnEHetqY4mdm00')
    expect(readScCode('<html></html>')).toBeUndefined()
  })

  it('is fetched once and cached for an hour', async () => {
    let calls = 0
    const fetch: EngineFetch = async (url) => {
      calls++
      return { status: 200, url, body: HOME }
    }
    expect(await startpageSc(fetch, 'en', 1000)).toBe('Xy12ab34cd00')
    expect(await startpageSc(fetch, 'en', 1000 + SC_TTL_MS - 1)).toBe('Xy12ab34cd00')
    expect(calls).toBe(1)
    await startpageSc(fetch, 'en', 1000 + SC_TTL_MS)
    expect(calls).toBe(2)
  })

  it('a home page without the code is an error, and is not cached', async () => {
    let body = '<html>changed</html>'
    const fetch: EngineFetch = async (url) => ({ status: 200, url, body })
    await expect(startpageSc(fetch, 'en')).rejects.toMatchObject({ code: 'upstream_error' })
    body = HOME
    expect(await startpageSc(fetch, 'en')).toBe('Xy12ab34cd00')
  })
})

describe('startpageProvider', () => {
  it('offers web search with time and safe, and site:', () => {
    expect(startpageProvider.name).toBe('startpage')
    expect(startpageProvider.capabilities).toEqual({ verticals: ['search'], params: ['page', 'time', 'safe'], siteOperator: true })
  })

  it('fetches the home page for sc, then posts the search form', async () => {
    const calls: Parameters<EngineFetch>[] = []
    const fetch: EngineFetch = async (...args) => {
      calls.push(args)
      return { status: 200, url: args[0], body: args[3] ? RESULTS : HOME }
    }
    const page = await searchRoute(startpageProvider.search, { ...base, page: 1 }, fetch)
    expect(calls.map((c) => c[0])).toEqual(['https://www.startpage.com/', 'https://www.startpage.com/sp/search'])
    expect(calls[1]?.[3]).toMatchObject({ query: 'javascript tutorial', sc: 'Xy12ab34cd00', cat: 'web', qsr: 'all', qadf: 'none' })
    expect(calls[1]?.[3]).not.toHaveProperty('abp')
    expect(page.results).toHaveLength(10)
    // The code is reused by the next search.
    await searchRoute(startpageProvider.search, base, fetch)
    expect(calls.map((c) => c[0])).toHaveLength(3)
  })

  it('forgets the code when the search is refused', async () => {
    let refuse = true
    const urls: string[] = []
    const fetch: EngineFetch = async (url, _h, _d, form) => {
      urls.push(url)
      if (form && refuse) throw Object.assign(new Error('blocked'), { code: 'upstream_blocked' })
      return { status: 200, url, body: form ? RESULTS : HOME }
    }
    await expect(searchRoute(startpageProvider.search, base, fetch)).rejects.toThrow('blocked')
    refuse = false
    await searchRoute(startpageProvider.search, base, fetch)
    expect(urls).toEqual([
      'https://www.startpage.com/',
      'https://www.startpage.com/sp/search',
      'https://www.startpage.com/',
      'https://www.startpage.com/sp/search',
    ])
  })
})
