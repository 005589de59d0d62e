import { describe, expect, it } from 'vitest'
import { searchRequest } from '../../../test/support/engine-requests.ts'
import { readFixture } from '../../../test/support/fixtures.ts'
import { ApiError } from '../../errors.ts'
import type { SearchRequest } from '../engine.types.ts'
import { searchRoute } from '../provider.routes.ts'
import type { EngineFetch } from '../provider.types.ts'
import { wikipediaProvider } from './wikipedia.provider.ts'
import { buildWikipediaAutocompleteRequest, buildWikipediaRequest, WIKIMEDIA_USER_AGENT, wikiLanguage } from './wikipedia.request.ts'
import { parseWikipediaAutocomplete, wikipediaAutocomplete } from './wikipedia-autocomplete.ts'

const base = searchRequest({ engine: 'wikipedia', q: 'oxygen' })
const req = (r: Partial<SearchRequest> = {}): SearchRequest => ({ ...base, ...r })

describe('buildWikipediaRequest', () => {
  it('asks list=search and generator=search with extracts, URLs and descriptions in one query', () => {
    const { url, lang } = buildWikipediaRequest(base)
    expect(lang).toBe('en')
    const u = new URL(url)
    expect(u.origin + u.pathname).toBe('https://en.wikipedia.org/w/api.php')
    expect(Object.fromEntries(u.searchParams)).toEqual({
      action: 'query',
      format: 'json',
      formatversion: '2',
      list: 'search',
      srsearch: 'oxygen',
      srlimit: '10',
      sroffset: '0',
      srprop: 'snippet|timestamp',
      generator: 'search',
      gsrsearch: 'oxygen',
      gsrlimit: '10',
      gsroffset: '0',
      prop: 'extracts|info|description',
      exintro: '1',
      explaintext: '1',
      exsentences: '3',
      exlimit: 'max',
      inprop: 'url',
    })
  })

  it('maps num and page (or an exact offset) to the limit and offset', () => {
    const p = new URL(buildWikipediaRequest(req({ num: 20, page: 3 })).url).searchParams
    expect([p.get('srlimit'), p.get('sroffset'), p.get('gsrlimit'), p.get('gsroffset')]).toEqual(['20', '40', '20', '40'])
    expect(new URL(buildWikipediaRequest(req({ offset: 7 })).url).searchParams.get('sroffset')).toBe('7')
  })

  it("picks the language's wiki", () => {
    expect(buildWikipediaRequest(req({ language: 'pt-BR', country: 'br' })).url).toMatch(/^https:\/\/pt\.wikipedia\.org\/w\/api\.php\?/)
    expect(buildWikipediaRequest(req({ language: 'de' })).lang).toBe('de')
  })

  it('names itself as the Wikimedia User-Agent policy asks', () => {
    const { headers } = buildWikipediaRequest(req({ language: 'fr' }))
    expect(headers).toEqual({ 'User-Agent': WIKIMEDIA_USER_AGENT, Accept: 'application/json', 'Accept-Language': 'fr' })
    expect(WIKIMEDIA_USER_AGENT).toMatch(/^Trawl\/[\d.]+ \(.+https:\/\/.+\)$/)
  })

  it('encodes the query', () => {
    expect(buildWikipediaRequest(req({ q: 'C++ & "x"' })).url).toContain('srsearch=C%2B%2B%20%26%20%22x%22')
  })
})

describe('wikiLanguage', () => {
  it('takes the base language, maps renamed wikis, and falls back to en', () => {
    expect(wikiLanguage('en')).toBe('en')
    expect(wikiLanguage('pt-BR')).toBe('pt')
    expect(wikiLanguage('zh-TW')).toBe('zh')
    expect(wikiLanguage('nb')).toBe('no')
    expect(wikiLanguage('fil')).toBe('tl')
    expect(wikiLanguage('iw')).toBe('he')
    expect(wikiLanguage('evil.example.com/')).toBe('en')
    expect(wikiLanguage(undefined)).toBe('en')
  })
})

describe('wikipediaProvider', () => {
  it('declares web search and autocomplete, and paging as its only optional parameter', () => {
    expect(wikipediaProvider.name).toBe('wikipedia')
    expect(wikipediaProvider.capabilities).toEqual({ verticals: ['search', 'autocomplete'], params: ['page'], siteOperator: false })
  })

  it('search fetches once with the Wikimedia block detector and parses on the right wiki', async () => {
    const seen: string[] = []
    const body =
      '{"batchcomplete":true,"query":{"searchinfo":{"totalhits":1},"search":[{"ns":0,"title":"Oxigênio","pageid":1,"snippet":"","timestamp":"2026-01-01T00:00:00Z"}]}}'
    const fetch: EngineFetch = async (url, _h, detect, form) => {
      seen.push(url)
      expect(form).toBeUndefined()
      expect(detect?.({ status: 200, url, body: '{"error":{"code":"ratelimited"}}' })).not.toBeNull()
      return { status: 200, url, body }
    }
    const page = await searchRoute(wikipediaProvider.search, req({ language: 'pt-BR' }), fetch)
    expect(seen).toHaveLength(1)
    expect(page.results[0]).toMatchObject({ title: 'Oxigênio', link: 'https://pt.wikipedia.org/wiki/Oxig%C3%AAnio', date: '2026-01-01T00:00:00Z' })
    expect(page.total_results).toBe(1)
  })

  it('an API error that is not a block is an upstream error, not an empty page', async () => {
    const fetch: EngineFetch = async (url) => ({ status: 200, url, body: '{"error":{"code":"badvalue","info":"Unrecognized value"}}' })
    const err = await searchRoute(wikipediaProvider.search, base, fetch).catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err).toMatchObject({ code: 'upstream_error', message: 'Wikipedia API error badvalue: Unrecognized value' })
  })
})

describe('autocomplete', () => {
  // Constructed to the documented opensearch shape (fixtures/serp/SOURCES.md): there is no real capture.
  const OPENSEARCH = readFixture('serp/wikipedia/autocomplete/opensearch-albert.constructed.json').toString('utf8')

  it('asks action=opensearch on the language wiki', () => {
    const { url, headers } = buildWikipediaAutocompleteRequest({ endpoint: 'autocomplete', q: 'albert', language: 'de' })
    expect(url).toBe('https://de.wikipedia.org/w/api.php?action=opensearch&format=json&formatversion=2&search=albert&namespace=0&limit=10')
    expect(headers['User-Agent']).toBe(WIKIMEDIA_USER_AGENT)
  })

  it('reads the titles in order without duplicates', () => {
    expect(parseWikipediaAutocomplete(OPENSEARCH)).toEqual({
      results: ['Albert Einstein', 'Albert II, Prince of Monaco', 'Albert Camus', 'Albert Hall', 'Alberta'].map((value) => ({ value })),
      parse_quality: 'ok',
    })
    expect(parseWikipediaAutocomplete('["zzqx",[],[],[]]')).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
    expect(parseWikipediaAutocomplete('{"error":{"code":"x"}}').parse_quality).toBe('partial')
  })

  it('run fetches once with the block detector', async () => {
    const fetch: EngineFetch = async (url, _h, detect) => {
      expect(detect?.({ status: 429, url, body: '' })).not.toBeNull()
      return { status: 200, url, body: OPENSEARCH }
    }
    expect((await wikipediaAutocomplete.run({ endpoint: 'autocomplete', q: 'albert' }, fetch)).results).toHaveLength(5)
  })
})
