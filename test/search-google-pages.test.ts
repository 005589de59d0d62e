import { describe, expect, test } from 'vitest'
import { engineSuite } from './support/engine-suite.ts'
import { fixture } from './support/fake-upstream.ts'
import { serpRouter } from './support/serp-router.ts'

/** /v1/search over real Google pages: mobile layouts, product ads, and the country a location names. */
const page = (path: string) => fixture(`serp/google/${path}`)

// A mobile page with titles in plain text lines, no headings (the layout of Google's feature-phone
// page), to show a layout the heading reader does not know still answers, marked partial.
const HEADINGLESS_MOBILE = `<html><head><meta name="viewport" content="width=device-width"></head><body>${[
  ['https://docs.python.org/3/library/asyncio.html', 'asyncio — Asynchronous I/O', 'docs.python.org › library'],
  ['https://realpython.com/async-io-python/', 'Async IO in Python: A Complete Walkthrough', 'realpython.com › async-io-python'],
]
  .map(
    ([url, title, crumb]) =>
      `<div><a href="/url?q=${encodeURIComponent(url as string)}&amp;sa=U"><span>${title}</span> <span><span>${crumb}</span></span></a><div><span>A description of the page, long enough to be a snippet.</span></div></div>`,
  )
  .join('')}</body></html>`

const suite = engineSuite(
  serpRouter([
    { host: 'www.google.com', path: '/search', query: { q: 'coffee' }, body: page('web-mobile/zlurad-coffee.html') },
    { host: 'www.google.com', path: '/search', query: { q: 'asyncio' }, body: HEADINGLESS_MOBILE },
    { host: 'www.google.com', path: '/search', query: { q: 'best running shoes' }, body: page('web-desktop/codechallenge-best-running-shoes.html') },
    { host: 'www.google.com', path: '/search', query: { q: 'croissant' }, body: page('web-desktop/zlurad-coffee.html') },
  ]),
)

describe('/v1/search on Google pages', () => {
  test('device=mobile reads the organic results of a real mobile page, and of a mobile layout without headings', async () => {
    const res = await suite.get('/v1/search', 'q=coffee&device=mobile')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(suite.upstream.seen.at(-1)!.headers['user-agent']).toMatch(/Mobile/)
    expect(body.results).toHaveLength(10)
    expect(body.results[0]).toMatchObject({ position: 1, title: 'Coffee', link: 'https://en.m.wikipedia.org/wiki/Coffee' })
    expect(body.meta.parse_quality).toBe('ok')

    const bare = await suite.get('/v1/search', 'q=asyncio&device=mobile')
    expect(bare.headers.get('x-credits-used')).toBe('1')
    const bareBody = await bare.json()
    expect(bareBody.results.map((r: { title: string; link: string }) => [r.title, r.link])).toEqual([
      ['asyncio — Asynchronous I/O', 'https://docs.python.org/3/library/asyncio.html'],
      ['Async IO in Python: A Complete Walkthrough', 'https://realpython.com/async-io-python/'],
    ])
    expect(bareBody.meta.parse_quality).toBe('partial')
  })

  test('ads=true returns the product ads of the sponsored carousel as ad items', async () => {
    const plain = await (await suite.get('/v1/search', 'q=best+running+shoes')).json()
    expect(plain.ads).toBeUndefined()
    const res = await suite.get('/v1/search', 'q=best+running+shoes&ads=true')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.ads).toHaveLength(12)
    expect(body.ads[0]).toEqual({
      position: 1,
      block: 'top',
      title: "Nike Men's Pegasus 40 Road Running Shoes in White, Size: 10.5 | DV3853-100",
      link: 'https://www.nike.com/t/pegasus-40-mens-road-running-shoes-mVJdmS/DV3853-100?nikemt=true',
      domain: 'nike.com',
      displayed_link: 'Nike',
      snippet: '$130.00',
    })
    for (const ad of body.ads) expect(ad).toMatchObject({ block: 'top', title: expect.any(String), link: expect.stringMatching(/^https:\/\//) })
    expect(body.results.length).toBeGreaterThan(0)
  })

  test('a location ending in a country name sets that country: "Paris, France" is fr', async () => {
    const body = await (await suite.get('/v1/search', `q=croissant&location=${encodeURIComponent('Paris, France')}`)).json()
    expect(body.request).toMatchObject({ location: 'Paris, France', country: 'fr' })
    expect(suite.lastUpstreamUrl().searchParams.get('gl')).toBe('fr')
    const uk = await (await suite.get('/v1/search', `q=croissant&location=${encodeURIComponent('London, United Kingdom')}`)).json()
    expect(uk.request.country).toBe('gb')
  })
})
