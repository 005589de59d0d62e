import { customsearch } from '@googleapis/customsearch'
import { describe, expect, test } from 'vitest'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { engineSuite } from './support/engine-suite.ts'
import { fixture, htmlPage } from './support/fake-upstream.ts'

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')
/** Google's own response, for the shape its clients expect. */
const GOOGLE_SAMPLE = JSON.parse(fixture('serp/google/custom-search-api/cse-v1-testing.json').toString('utf8'))

const suite = engineSuite(htmlPage(COFFEE))

const cse = (query: string) => fetch(`${suite.trawl.base}/customsearch/v1?${query}`)

describe('/customsearch/v1 with Google’s official Node client', () => {
  test('cse.list works unmodified apart from the root URL, key as ?key=', async () => {
    const client = customsearch({ version: 'v1', rootUrl: `${suite.trawl.base}/` })
    const res = await client.cse.list({ auth: suite.account.key, q: 'coffee', cx: 'f1b3b922adefa22dd', num: 5, start: 3, gl: 'de', hl: 'de' })
    expect(res.status).toBe(200)
    const data = res.data
    expect(data.kind).toBe('customsearch#search')
    expect(data.items).toHaveLength(5)
    expect(data.items![0]).toMatchObject({ kind: 'customsearch#result', link: expect.stringMatching(/^https:\/\//), displayLink: expect.any(String) })
    expect(data.queries!.request![0]).toMatchObject({ searchTerms: 'coffee', count: 5, startIndex: 3, cx: 'f1b3b922adefa22dd', gl: 'de', hl: 'de' })
    expect(data.queries!.nextPage![0]).toMatchObject({ startIndex: 8, count: 5 })
    expect(data.queries!.previousPage![0]).toMatchObject({ startIndex: 1 })
    expect(Number(data.searchInformation!.totalResults)).toBeGreaterThan(1_000_000)
    // gaxios 7 hands back a fetch Headers object.
    expect(new Headers(res.headers as HeadersInit).get('x-credits-used')).toBe('1')
    // start=3 is Google's offset 2: the same engine URL a Custom Search user would have got results from.
    expect(Object.fromEntries(suite.lastUpstreamUrl().searchParams)).toMatchObject({ q: 'coffee', start: '2', gl: 'de', hl: 'de' })
  })

  test('the response carries every key and item field of a real Custom Search response', async () => {
    const body = await (await cse(`key=${suite.account.key}&q=coffee&cx=abc`)).json()
    for (const key of ['kind', 'url', 'queries', 'context', 'searchInformation', 'items']) expect(body).toHaveProperty(key)
    for (const key of Object.keys(GOOGLE_SAMPLE.searchInformation)) expect(body.searchInformation).toHaveProperty(key)
    for (const key of Object.keys(GOOGLE_SAMPLE.queries.request[0])) expect(body.queries.request[0]).toHaveProperty(key)
    const itemKeys = ['kind', 'title', 'htmlTitle', 'link', 'displayLink', 'snippet', 'htmlSnippet', 'formattedUrl', 'htmlFormattedUrl']
    for (const key of itemKeys) expect(GOOGLE_SAMPLE.items[0]).toHaveProperty(key)
    for (const item of body.items) for (const key of itemKeys) expect(item).toHaveProperty(key)
    expect(body.items[0]).toMatchObject({
      title: 'Coffee',
      htmlTitle: '<b>Coffee</b>',
      link: 'https://en.wikipedia.org/wiki/Coffee',
      displayLink: 'en.wikipedia.org',
    })
    expect(body.items[0].htmlSnippet).toMatch(/^<b>Coffee<\/b> is a beverage/)
    expect(typeof body.searchInformation.totalResults).toBe('string')
    expect(body.queries.request[0].totalResults).toBe(body.searchInformation.totalResults)
  })

  test('fields= trims the answer with Google’s partial-response syntax, through the official client too', async () => {
    const client = customsearch({ version: 'v1', rootUrl: `${suite.trawl.base}/` })
    const res = await client.cse.list({ auth: suite.account.key, q: 'coffee', cx: 'x', num: 2, fields: 'items(title,link),searchInformation/totalResults' })
    expect(res.data).toEqual({
      searchInformation: { totalResults: expect.any(String) },
      items: [
        { title: 'Coffee', link: 'https://en.wikipedia.org/wiki/Coffee' },
        { title: expect.any(String), link: expect.any(String) },
      ],
    })
    const bad = await cse(`key=${suite.account.key}&q=coffee&fields=items(title`)
    expect(await errorOf(bad)).toMatchObject({ status: 400, message: expect.stringMatching(/^fields: expected \)/) })
    expect(bad.headers.get('x-credits-used')).toBe('0')
  })

  test('Custom Search parameters map onto the engine request', async () => {
    await cse(
      `key=${suite.account.key}&q=coffee&lr=lang_fr&cr=countryFR&safe=active&dateRestrict=w2&siteSearch=www.example.org&siteSearchFilter=e&exactTerms=cold brew&excludeTerms=decaf&fileType=pdf`,
    )
    const params = Object.fromEntries(suite.lastUpstreamUrl().searchParams)
    expect(params).toMatchObject({ hl: 'fr', gl: 'fr', safe: 'active', tbs: 'qdr:w2' })
    expect(params.q).toBe('coffee "cold brew" -decaf filetype:pdf -site:example.org')
  })

  test('errors use Trawl’s envelope, name the parameter, and cost nothing', async () => {
    const cases: [string, number, RegExp][] = [
      ['q=coffee', 401, /missing API key/],
      [`key=${suite.account.key}`, 400, /q is required/],
      [`key=${suite.account.key}&q=coffee&num=11`, 400, /num must be between 1 and 10/],
      [`key=${suite.account.key}&q=coffee&start=95`, 400, /start \+ num - 1 must not pass 100/],
      [`key=${suite.account.key}&q=coffee&imgSize=large`, 400, /unknown parameter imgSize/],
      [`key=trawl_live_${'x'.repeat(32)}&q=coffee`, 401, /./],
    ]
    for (const [query, status, message] of cases) {
      const res = await cse(query)
      expect(await errorOf(res)).toMatchObject({ status, message: expect.stringMatching(message) })
    }
    expect(suite.upstream.seen).toHaveLength(0)
  })

  test('an empty answer has no items, costs nothing, and the books balance', async () => {
    suite.upstream.handle(htmlPage(fixture('serp/google/web-desktop/zlurad-no-results.html')))
    const res = await cse(`key=${suite.account.key}&q=zzqxv`)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.items).toBeUndefined()
    expect(body.searchInformation.totalResults).toBe('0')
    expect(res.headers.get('x-credits-used')).toBe('0')
    await expectBooksBalanced(suite.trawl, suite.account.id)
  })
})
