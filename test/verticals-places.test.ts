import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { describe, expect, test } from 'vitest'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { engineSuite } from './support/engine-suite.ts'
import { fixture } from './support/fake-upstream.ts'
import { type SerpRoute, serpRouter } from './support/serp-router.ts'

/** Maps, places and reviews through the HTTP API, on saved Google Maps payloads. */
const real = (path: string) => fixture(`serp/google/${path}`)
const constructed = (path: string) => readFileSync(new URL(`fixtures/google/${path}`, import.meta.url))

const FIRST_CURSOR = 'CAESBkVnSUlDZw=='
const TIPSY_CID = '13256035819497102811'

const ROUTES: SerpRoute[] = [
  { host: 'www.google.com', path: '/search', query: { tbm: 'map' }, body: `)]}'\n${real('maps/gosom-search-coffee.json')}`, type: 'application/json' },
  { host: 'www.google.com', path: '/maps', query: { cid: TIPSY_CID }, body: real('maps/gosom-place-page-tipsy-sticks.html') },
]

/** listugcposts: the first page until the continuation token comes back, then the last page. */
function reviewsAndRoutes(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://x')
  if (req.headers['x-forwarded-host'] === 'www.google.com' && url.pathname === '/maps/rpc/listugcposts') {
    const page = (url.searchParams.get('pb') ?? '').includes(FIRST_CURSOR) ? 'last' : 'first'
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(constructed(`reviews/listugcposts-${page}-page.constructed.txt`))
    return
  }
  serpRouter(ROUTES)(req, res)
}

const suite = engineSuite(reviewsAndRoutes)

describe('/v1/maps', () => {
  test('places with coordinates, hours and ids from the real tbm=map payload, 1 credit', async () => {
    const res = await suite.get('/v1/maps', 'q=coffee&ll=@38.03,23.70,14z')
    expect(res.headers.get('x-credits-used')).toBe('1')
    const body = await res.json()
    expect(body.request).toEqual({ endpoint: 'maps', q: 'coffee', country: 'us', language: 'en', page: 1, ll: '@38.03,23.70,14z' })
    expect(body.results).toHaveLength(20)
    expect(body.results[0]).toEqual({
      position: 1,
      title: 'Dream Coffee',
      address: 'Eakou 74, Ilion 131 22, Greece',
      latitude: 38.0331931,
      longitude: 23.7094475,
      rating: 4.8,
      rating_count: 48,
      price_level: null,
      type: 'Coffee shop',
      types: ['Coffee shop'],
      website: 'https://www.vrisko.gr/details/ag2e4fci67301a_44_3i4a4c_f341701',
      phone_number: '+30 21 0261 6578',
      opening_hours: expect.objectContaining({ Sunday: 'Closed', Monday: '7 AM–8:30 PM' }),
      thumbnail_url: null,
      place_id: 'ChIJoRVrMS-joRQRkzrMbbRUnBY',
      cid: '1629270299114224275',
      fid: '0x14a1a32f316b15a1:0x169c54b46dcc3a93',
    })
    const url = suite.lastUpstreamUrl()
    expect(url.searchParams.get('tbm')).toBe('map')
    expect(url.searchParams.get('q')).toBe('coffee')
    expect(url.searchParams.get('pb')).toContain('23.7') // the viewport rides in pb
  })

  test('page 2 starts at position 21; markdown lists the places', async () => {
    const body = await (await suite.get('/v1/maps', 'q=coffee&page=2')).json()
    expect(body.results[0].position).toBe(21)
    const md = await (await suite.get('/v1/maps', 'q=coffee&format=markdown')).text()
    expect(md).toContain('Dream Coffee')
  })
})

describe('/v1/places', () => {
  test('the places shape: no viewport, ids /v1/reviews takes, 1 credit', async () => {
    const res = await suite.post('/v1/places', { q: 'coffee', location: 'Athens,Greece' })
    expect(res.headers.get('x-credits-used')).toBe('1')
    const body = await res.json()
    expect(body.request).toEqual({ endpoint: 'places', q: 'coffee', country: 'gr', language: 'en', page: 1, location: 'Athens,Greece' })
    expect(body.results[1]).toMatchObject({
      position: 2,
      title: 'Cocoza Speciality Coffee',
      address: 'Antheon 24, Peristeri 121 37, Greece',
      rating: 5,
      rating_count: 130,
      type: 'Coffee shop',
      phone_number: '+30 21 2121 2540',
      place_id: 'ChIJZ3xpixSjoRQRS73qdI8R-6c',
      cid: '12104287731327876427',
    })
    expect(body.results[1]).not.toHaveProperty('opening_hours')
    expect(suite.lastUpstreamUrl().searchParams.get('tbm')).toBe('map')
    const md = await (await suite.get('/v1/places', 'q=coffee&format=markdown')).text()
    expect(md).toContain('Cocoza Speciality Coffee')
    const compact = await (await suite.get('/v1/places', 'q=coffee&format=compact')).json()
    expect(compact.results[1].title).toBe('Cocoza Speciality Coffee')
  })
})

describe('/v1/reviews', () => {
  test('pages with a token bound to place and sort, until the last page', async () => {
    const fid = '0x14a1a32f316b15a1:0x169c54b46dcc3a93'
    const first = await suite.post('/v1/reviews', { fid, sort: 'newest', num: 3 })
    expect(first.headers.get('x-credits-used')).toBe('1')
    const page1 = await first.json()
    expect(page1.request).toEqual({ endpoint: 'reviews', fid, sort: 'newest', num: 3, country: 'us', language: 'en' })
    expect(page1.results).toHaveLength(3)
    expect(page1.results[0]).toMatchObject({
      rating: 1,
      date: '2 months ago',
      iso_date: '2026-02-27T10:02:02.193Z',
      likes: 0,
      user: { name: 'E. Ö.', reviews: 2 },
      response: { snippet: expect.stringMatching(/^Es tut uns sehr leid/) },
    })
    expect(page1.next_page_token).toEqual(expect.any(String))

    const replayed = await suite.post('/v1/reviews', { fid, sort: 'most_relevant', num: 3, page_token: page1.next_page_token })
    expect(await errorOf(replayed)).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/page_token .*sort=newest/) })
    const otherPlace = await suite.post('/v1/reviews', { cid: '42', sort: 'newest', num: 3, page_token: page1.next_page_token })
    expect(await errorOf(otherPlace)).toMatchObject({ status: 400, message: expect.stringMatching(/another place/) })
    const forged = await suite.post('/v1/reviews', { fid, sort: 'newest', page_token: `${page1.next_page_token.slice(0, -4)}AAAA` })
    expect((await errorOf(forged)).status).toBe(400)

    const seenBefore = suite.upstream.seen.length
    const page2 = await (await suite.get('/v1/reviews', `fid=${fid}&sort=newest&num=3&page_token=${encodeURIComponent(page1.next_page_token)}`)).json()
    expect(page2.results).toHaveLength(1)
    expect(page2.results[0]).toMatchObject({ rating: 4, date: '2 years ago' })
    expect(page2).not.toHaveProperty('next_page_token')
    expect(suite.upstream.seen.length).toBe(seenBefore + 1) // the refused tokens never reached Google
  })

  test('a cid is resolved to the place first; num=20 holds 2 credits and bills the 3 delivered as 1', async () => {
    const res = await suite.get('/v1/reviews', `cid=${TIPSY_CID}&num=20`)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('1')
    const hosts = suite.upstream.seen.map((s) => new URL(s.url, 'http://x').pathname)
    expect(hosts).toEqual(['/maps', '/maps/rpc/listugcposts', '/maps/rpc/listugcposts'])
    const body = await res.json()
    expect(body.results).toHaveLength(4)
    expect(body).not.toHaveProperty('next_page_token')
  })

  test('paging stops at review 100 of a sort order, each page billed 1 per 10', async () => {
    // A place with 300 reviews: listugcposts pages of what is asked, cursors "at<offset>".
    const real = JSON.parse(fixture('serp/google/maps-reviews/gosom-review-no-translation.json').toString('utf8'))[0]
    suite.upstream.handle((req, res) => {
      const pb = new URL(req.url ?? '/', 'http://x').searchParams.get('pb') ?? ''
      const size = Number(/!2m2!1i(\d+)/.exec(pb)?.[1])
      const from = Number(/!2sat(\d+)/.exec(pb)?.[1] ?? 0)
      const items = Array.from({ length: size }, (_, i) => {
        const e = structuredClone(real)
        e[0][0] = `review-${from + i + 1}`
        return e
      })
      res.writeHead(200, { 'content-type': 'application/json' }).end(`)]}'\n${JSON.stringify([null, `at${from + size}`, items])}`)
    })
    const fid = '0x1:0x2'
    let token: string | undefined
    const pages: number[] = []
    for (let i = 0; i < 4 && (i === 0 || token); i++) {
      const res = await suite.post('/v1/reviews', { fid, num: 30, ...(token && { page_token: token }) })
      const body = await res.json()
      pages.push(body.results.length)
      expect(res.headers.get('x-credits-used')).toBe(String(Math.ceil(body.results.length / 10)))
      token = body.next_page_token
    }
    expect(pages).toEqual([30, 30, 30, 10])
    expect(token).toBeUndefined()
  })

  test('compact and markdown formats', async () => {
    const md = await (await suite.get('/v1/reviews', 'fid=0x1:0x2&format=markdown')).text()
    expect(md).toContain('E. Ö.')
    const compact = await (await suite.get('/v1/reviews', 'fid=0x1:0x2&format=compact')).json()
    expect(compact.results[0].rating).toBe(1)
    await expectBooksBalanced(suite.trawl, suite.account.id)
  })
})
