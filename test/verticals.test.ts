import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { engineSuite } from './support/engine-suite.ts'
import { fixture } from './support/fake-upstream.ts'
import { type SerpRoute, serpRouter } from './support/serp-router.ts'

/** News, images, videos, scholar, patents and autocomplete through the HTTP API, on saved upstream answers. */
const real = (path: string) => fixture(`serp/google/${path}`)
const constructed = (path: string) => readFileSync(new URL(`fixtures/google/${path}`, import.meta.url))

const ROUTES: SerpRoute[] = [
  { host: 'www.google.com', path: '/search', query: { tbm: 'isch' }, body: real('images/aql-green-capital-energy-basic.html') },
  { host: 'www.google.com', path: '/search', query: { tbm: 'vid' }, body: real('videos/aql-atalanta-bergamasca-calcio-basic.html') },
  {
    host: 'news.google.com',
    path: '/rss/search',
    body: constructed('news/news-rss-ai-regulation.constructed.xml'),
    type: 'application/rss+xml; charset=utf-8',
  },
  { host: 'scholar.google.com', path: '/scholar', body: constructed('scholar/scholar-coral-bleaching.constructed.html') },
  {
    host: 'patents.google.com',
    path: '/xhr/query',
    body: constructed('patents/patents-solar-panel-cleaning-robot.constructed.json'),
    type: 'application/json',
  },
  { host: 'www.google.com', path: '/search', query: { tbm: 'shop' }, body: constructed('shopping/shopping-tbm-shop-us.constructed.html') },
  // Lens, older page: for this image, uploadbyurl answers with lens.google.com's own results page,
  // whose matches are the older generation of HTML cards.
  {
    host: 'lens.google.com',
    path: '/uploadbyurl',
    query: { url: 'https://upload.example.org/kettle.jpg' },
    status: 302,
    body: '',
    location: 'https://lens.google.com/search?p=AbOlderKettle',
  },
  { host: 'lens.google.com', path: '/search', body: constructed('lens/lens-g19kaf-cards.constructed.html') },
  // Lens: uploadbyurl redirects to the udm=26 results page on www.google.com, as the real one does.
  { host: 'lens.google.com', path: '/uploadbyurl', status: 302, body: '', location: 'https://www.google.com/search?udm=26&vsrid=abc&lns_surface=26' },
  { host: 'www.google.com', path: '/search', query: { udm: '26' }, body: constructed('lens/lens-udm26-visual-matches.constructed.html') },
  {
    host: 'www.google.com',
    path: '/complete/search',
    body: constructed('autocomplete/autocomplete-firefox-cafe-fr.constructed.json'),
    type: 'text/javascript; charset=UTF-8',
  },
]

const suite = engineSuite(serpRouter(ROUTES))

describe('/v1/images', () => {
  test('images from a real basic-layout page, defaults echoed, 1 credit', async () => {
    const res = await suite.get('/v1/images', 'q=green+capital+energy')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('1')
    const body = await res.json()
    expect(body.request).toEqual({
      endpoint: 'images',
      engine: 'google',
      q: 'green capital energy',
      country: 'us',
      language: 'en',
      num: 10,
      page: 1,
      safe: 'off',
    })
    expect(body.results).toHaveLength(10)
    expect(body.results[0]).toEqual({
      position: 1,
      title: 'Saving Shaw money > Shaw...',
      image_url: expect.stringMatching(/^https:\/\/encrypted-tbn0\.gstatic\.com\/images\?q=tbn:/),
      image_width: null,
      image_height: null,
      thumbnail_url: expect.stringMatching(/^https:\/\/encrypted-tbn0\.gstatic\.com/),
      source: 'www.shaw.af.mil',
      domain: 'shaw.af.mil',
      link: 'https://www.shaw.af.mil/News/Article-Display/Article/664405/saving-shaw-money/',
    })
    expect(body.meta).toMatchObject({ engine: 'google', parse_quality: 'ok', credits_used: 1, cached: false })
    expect(Object.fromEntries(suite.lastUpstreamUrl().searchParams)).toMatchObject({ q: 'green capital energy', tbm: 'isch', hl: 'en', gl: 'us' })
  })

  test('num=20 is two credits; page 2 positions start at 11; safe and time reach the engine', async () => {
    const deep = await suite.get('/v1/images', 'q=energy&num=20')
    expect(deep.headers.get('x-credits-used')).toBe('2')
    expect((await deep.json()).results).toHaveLength(20)
    const second = await (await suite.get('/v1/images', 'q=energy&page=2&safe=active&time=week')).json()
    expect(second.results[0].position).toBe(11)
    expect(Object.fromEntries(suite.lastUpstreamUrl().searchParams)).toMatchObject({ safe: 'active', tbs: 'qdr:w' })
  })

  test('markdown and compact formats', async () => {
    const md = await suite.get('/v1/images', 'q=energy&format=markdown')
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/)
    expect(await md.text()).toContain('Saving Shaw money')
    const compact = await (await suite.get('/v1/images', 'q=energy&format=compact')).json()
    expect(Object.keys(compact).sort()).toEqual(['meta', 'request', 'results'])
    expect(Object.keys(compact.results[0]).length).toBeLessThan(7)
  })

  test('a page with no images is 200, empty and free', async () => {
    suite.upstream.handle(serpRouter([{ host: 'www.google.com', path: '/search', body: real('images/aql-kush-raval-no-results-de.html') }]))
    const res = await suite.get('/v1/images', 'q=kush+raval')
    expect(res.status).toBe(200)
    expect((await res.json()).meta.parse_quality).toBe('empty')
    expect(res.headers.get('x-credits-used')).toBe('0')
  })
})

describe('/v1/videos', () => {
  test('videos with duration, source, channel and date from a real page', async () => {
    const body = await (await suite.post('/v1/videos', { q: 'atalanta bergamasca calcio' })).json()
    expect(body.request).toEqual({ endpoint: 'videos', engine: 'google', q: 'atalanta bergamasca calcio', country: 'us', language: 'en', num: 10, page: 1 })
    expect(body.results).toHaveLength(10)
    expect(body.results[0]).toMatchObject({ position: 1, title: 'Atalanta Bergamasca Calcio - YouTube', domain: 'youtube.com', source: 'YouTube' })
    expect(body.results[9]).toMatchObject({ duration: '3:21', date: 'Jan 9, 2022', source: 'playmakerstats.com' })
    const fields = new Set(body.results.flatMap((r: object) => Object.keys(r)))
    for (const f of ['position', 'title', 'link', 'domain', 'snippet', 'image_url', 'duration', 'source', 'channel', 'date']) expect(fields).toContain(f)
    expect(suite.lastUpstreamUrl().searchParams.get('tbm')).toBe('vid')
  })

  test('fields= projects; markdown lists the videos', async () => {
    const projected = await (await suite.get('/v1/videos', 'q=atalanta&fields=results.title,results.duration')).json()
    expect(Object.keys(projected).sort()).toEqual(['meta', 'request', 'results'])
    expect(projected.results[9]).toEqual({ title: expect.any(String), duration: '3:21' })
    const md = await (await suite.get('/v1/videos', 'q=atalanta&format=markdown')).text()
    expect(md).toContain('Atalanta Bergamasca Calcio - YouTube')
  })
})

describe('/v1/news', () => {
  test('news from the Google News RSS feed, sliced by page and num', async () => {
    const res = await suite.get('/v1/news', 'q=ai+regulation&time=day')
    const body = await res.json()
    expect(body.request).toEqual({ endpoint: 'news', engine: 'google', q: 'ai regulation', country: 'us', language: 'en', num: 10, page: 1, time: 'day' })
    expect(body.results).toHaveLength(10)
    expect(body.results[0]).toMatchObject({
      position: 1,
      title: 'EU publishes final code of practice for general-purpose AI models',
      domain: 'reuters.com',
      source: 'Reuters',
      date: 'Sat, 21 Nov 2026 09:14:00 GMT',
    })
    expect(res.headers.get('x-credits-used')).toBe('1')
    // The feed's links go through news.google.com: meta says the URLs are not the publishers' own.
    expect(body.results[0].link).toMatch(/^https:\/\/news\.google\.com\//)
    expect(body.meta.resolved_urls).toBe(false)
    const feed = suite.lastUpstreamUrl()
    expect(feed.pathname).toBe('/rss/search')
    expect(feed.searchParams.get('q')).toBe('ai regulation when:1d')
    expect(feed.searchParams.get('ceid')).toBe('US:en')
    const second = await (await suite.get('/v1/news', 'q=ai+regulation&page=2')).json()
    expect(second.results.map((r: { position: number }) => r.position)).toEqual([11, 12, 13, 14])
  })

  test('location sets the country; markdown renders', async () => {
    const body = await (await suite.get('/v1/news', 'q=ai&location=Munich,Bavaria,Germany')).json()
    expect(body.request).toMatchObject({ country: 'de', location: 'Munich,Bavaria,Germany' })
    const md = await (await suite.get('/v1/news', 'q=ai&format=markdown')).text()
    expect(md).toContain('EU publishes final code of practice')
  })
})

describe('/v1/scholar', () => {
  test('works with publication line, year, citations and PDF; num=20 asks Scholar for 20', async () => {
    const body = await (await suite.get('/v1/scholar', 'q=coral+bleaching')).json()
    expect(body.request).toEqual({ endpoint: 'scholar', q: 'coral bleaching', language: 'en', num: 10, page: 1 })
    expect(body.results[0]).toMatchObject({
      position: 1,
      title: 'Thermal stress thresholds and recurrent mass bleaching of reef-building corals',
      domain: 'int-res.com',
      year: 2017,
      cited_by: 1204,
      id: 'Xk3p9QvR2mEJ',
    })
    expect(body.results[0].pdf_url).toMatch(/\.pdf$/)
    expect(suite.lastUpstreamUrl().hostname).toBe('scholar.google.com')
    // num=20 is one Scholar page of 20; this page holds 10, so 1 credit is billed of the 2 held.
    const deep = await suite.get('/v1/scholar', 'q=coral+bleaching&num=20&language=de')
    expect(deep.headers.get('x-credits-used')).toBe('1')
    expect(Object.fromEntries(suite.lastUpstreamUrl().searchParams)).toMatchObject({ q: 'coral bleaching', num: '20', hl: 'de' })
    const md = await (await suite.get('/v1/scholar', 'q=coral+bleaching&format=markdown')).text()
    expect(md).toContain('Thermal stress thresholds')
  })

  test('the CAPTCHA page of the real capture is a 503 upstream_blocked, refunded', async () => {
    suite.upstream.handle(serpRouter([{ host: 'scholar.google.com', path: '/scholar', body: real('scholar/aql-muhammed-rashid.html') }]))
    const res = await suite.get('/v1/scholar', 'q=muhammed+rashid')
    expect(await errorOf(res)).toMatchObject({ status: 503, code: 'upstream_blocked' })
    expect(res.headers.get('retry-after')).toBeTruthy()
    expect(res.headers.get('x-credits-used')).toBe('0')
  })
})

describe('/v1/patents', () => {
  test('patents with dates, people and PDF from the xhr/query JSON', async () => {
    const res = await suite.post('/v1/patents', { q: 'solar panel cleaning robot', page: 2 })
    const body = await res.json()
    expect(body.request).toEqual({ endpoint: 'patents', q: 'solar panel cleaning robot', num: 10, page: 2 })
    expect(body.results[0]).toMatchObject({
      position: 11,
      title: 'Autonomous cleaning robot for solar panel arrays',
      link: 'https://patents.google.com/patent/US10594250B2/en',
      publication_number: 'US10594250B2',
      priority_date: '2016-03-14',
      grant_date: '2020-03-17',
      inventor: 'Daniel R. Okonkwo',
      assignee: 'Helios Robotics, Inc.',
    })
    expect(res.headers.get('x-credits-used')).toBe('1')
    const inner = new URLSearchParams(suite.lastUpstreamUrl().searchParams.get('url') ?? '')
    expect(inner.get('q')).toBe('solar panel cleaning robot')
    expect(inner.get('page')).toBe('1') // Patents counts pages from 0
    const compact = await (await suite.get('/v1/patents', 'q=solar&format=compact')).json()
    expect(compact.results[0]).toMatchObject({ title: 'Autonomous cleaning robot for solar panel arrays', publication_number: 'US10594250B2' })
    const md = await (await suite.get('/v1/patents', 'q=solar&format=markdown')).text()
    expect(md).toContain('US10594250B2')
  })

  test('num=100 holds the 7-credit bundle, not 10: an account with 7 credits can ask, one with 6.5 cannot', async () => {
    const seven = await suite.trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 7 })
    const res = await fetch(`${suite.trawl.base}/v1/patents?q=solar&num=100`, { headers: { authorization: `Bearer ${seven.key}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('1') // 10 patents delivered
    const poorer = await suite.trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 6.5 })
    const refused = await fetch(`${suite.trawl.base}/v1/patents?q=solar&num=100`, { headers: { authorization: `Bearer ${poorer.key}` } })
    expect(await errorOf(refused)).toMatchObject({ status: 402, code: 'insufficient_credits' })
  })
})

describe('/v1/autocomplete', () => {
  test('suggestions for 0.5 credit, JSON only', async () => {
    const res = await suite.get('/v1/autocomplete', 'q=caf&country=fr&language=fr')
    expect(res.headers.get('x-credits-used')).toBe('0.5')
    const body = await res.json()
    expect(body.request).toEqual({ endpoint: 'autocomplete', q: 'caf', country: 'fr', language: 'fr' })
    expect(body.results).toHaveLength(10)
    expect(body.results[0]).toEqual({ value: 'café de flore' })
    expect(Object.fromEntries(suite.lastUpstreamUrl().searchParams)).toMatchObject({ q: 'caf', client: 'firefox', hl: 'fr', gl: 'fr' })
    const compact = await (await suite.get('/v1/autocomplete', 'q=caf&format=compact')).json()
    expect(compact.results[0]).toEqual({ value: 'café de flore' })
  })
})

describe('/v1/shopping', () => {
  test('products with the price as displayed and as a number, currency, merchant and id', async () => {
    const res = await suite.get('/v1/shopping', 'q=trail+running+shoes&location=Austin,Texas,United+States')
    expect(res.headers.get('x-credits-used')).toBe('1')
    const body = await res.json()
    expect(body.request).toEqual({
      endpoint: 'shopping',
      q: 'trail running shoes',
      country: 'us',
      language: 'en',
      page: 1,
      location: 'Austin,Texas,United States',
    })
    expect(body.results).toHaveLength(5)
    expect(body.results[0]).toMatchObject({
      position: 1,
      title: "Stridewell Trail Runner GTX Men's Running Shoes",
      source: 'Summit Outfitters',
      price: '$1,299.00',
      price_value: 1299,
      currency: 'USD',
      delivery: 'Free delivery',
      rating: 4.6,
      rating_count: 2345,
      product_id: '4815162342001',
    })
    const url = suite.lastUpstreamUrl()
    expect(url.searchParams.get('tbm')).toBe('shop')
    expect(url.searchParams.get('uule')).toMatch(/^w CAIQICI/) // Google's own links carry a literal +, read as a space
    const md = await (await suite.get('/v1/shopping', 'q=shoes&format=markdown')).text()
    expect(md).toContain('$1,299.00')
  })
})

describe('/v1/lens', () => {
  test('visual matches for an image URL, 2 credits, JSON only', async () => {
    const res = await suite.post('/v1/lens', { url: 'https://upload.example.org/tabby.jpg' })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('2')
    const body = await res.json()
    expect(body.request).toEqual({ endpoint: 'lens', url: 'https://upload.example.org/tabby.jpg', country: 'us', language: 'en' })
    expect(body.results).toHaveLength(6)
    expect(body.results[0]).toMatchObject({
      position: 1,
      title: 'Tabby Cat Markings Explained: Classic, Mackerel, Spotted and Ticked',
      source: 'Cat Breeds Guide',
      link: 'https://www.catbreedsguide.example/tabby-cat-markings',
      domain: 'catbreedsguide.example',
    })
    const [lookup, results] = suite.upstream.seen.slice(-2).map((s) => new URL(s.url, `https://${s.host}`))
    expect(lookup!.searchParams.get('url')).toBe('https://upload.example.org/tabby.jpg')
    expect(results!.searchParams.get('udm')).toBe('26')
    expect(body.meta.route.map((r: { host: string }) => r.host)).toEqual(['lens.google.com'])
  })

  test('the older generation of match cards (div.G19kAf.ENn9pd) is read too', async () => {
    const res = await suite.post('/v1/lens', { url: 'https://upload.example.org/kettle.jpg' })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('2')
    const body = await res.json()
    expect(body.results).toEqual([
      {
        position: 1,
        title: 'Red Enamel Stovetop Kettle 2 L',
        source: 'Kitchen Store',
        link: 'https://www.kitchenstore.example/kettles/red-enamel-kettle',
        domain: 'kitchenstore.example',
        thumbnail_url: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9GcOldKettle1',
        image_url: null,
      },
      expect.objectContaining({ position: 2, title: 'Kettle on the camp stove', source: 'Flickr', domain: 'flickr.com' }),
      expect.objectContaining({ position: 3, title: 'Why do enamel kettles whistle?', source: 'Retro Home', domain: 'retrohome.example' }),
    ])
    const [lookup, results] = suite.upstream.seen.slice(-2).map((s) => new URL(s.url, `https://${s.host}`))
    expect(lookup!.searchParams.get('url')).toBe('https://upload.example.org/kettle.jpg')
    expect(results!.pathname).toBe('/search')
    expect(results!.searchParams.get('p')).toBe('AbOlderKettle')
  })

  test('fields= works; a private image address is refused before any work', async () => {
    const projected = await (await suite.post('/v1/lens', { url: 'https://upload.example.org/tabby.jpg', fields: 'results.link' })).json()
    expect(projected.results[0]).toEqual({ link: 'https://www.catbreedsguide.example/tabby-cat-markings' })
    suite.upstream.seen.length = 0
    for (const url of ['http://127.0.0.1/cat.jpg', 'http://localhost:8080/cat.jpg', 'http://[::1]/cat.jpg', 'http://10.0.0.7/cat.jpg']) {
      const res = await suite.post('/v1/lens', { url })
      expect(await errorOf(res)).toMatchObject({ status: 400, message: expect.stringMatching(/public http\(s\) image URL/) })
    }
    expect(suite.upstream.seen).toHaveLength(0)
  })
})

describe('cache and books', () => {
  test('max_age replays a vertical at half price', async () => {
    await suite.get('/v1/videos', 'q=replay&num=20')
    const res = await suite.get('/v1/videos', 'q=replay&num=20&max_age=300')
    expect(res.headers.get('x-cache')).toBe('HIT')
    // 10 videos delivered for num=20: 1 credit live, 0.5 replayed.
    expect(res.headers.get('x-credits-used')).toBe('0.5')
    expect((await res.json()).meta).toMatchObject({ cached: true, cached_at: expect.any(String) })
  })

  test('an upstream failure is a 503, never a 502, and refunded', async () => {
    suite.upstream.handle(serpRouter([]))
    const res = await suite.get('/v1/news', 'q=nothing')
    expect(res.status).toBe(503)
    expect(res.headers.get('x-credits-used')).toBe('0')
    await expectBooksBalanced(suite.trawl, suite.account.id)
  })
})
