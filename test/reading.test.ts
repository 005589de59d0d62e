import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { rankHighlights } from '../src/reader/highlights.rank.ts'
import { countTokensNow as countTokens } from '../src/text/token-count.ts'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { type LocalSite, startLocalSite, startTunnelProxy, type TunnelProxy } from './support/reading-site.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

let trawl: Trawl
let site: LocalSite
let proxy: TunnelProxy

beforeAll(async () => {
  site = await startLocalSite()
  proxy = await startTunnelProxy(() => `${site.url}/article/ars`)
  trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_PROXY_POOLS: `us=${proxy.url}` })
})
afterAll(async () => {
  await trawl?.close()
  await proxy?.close()
  await site?.close()
})

const ARS_TITLE = 'Just-released Minecraft exploit makes it easy to crash game servers'
const ARS_SENTENCE = 'A flaw in the wildly popular online game *Minecraft* makes it easy for just about anyone to crash the server'

const page = (path: string) => `${site.url}${path}`
const newAccount = (credits = 100) => trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits })
const post = (key: string, path: string, body: unknown) =>
  fetch(`${trawl.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
const extract = (key: string, body: Record<string, unknown>) => post(key, '/v1/extract', body)
const webpage = (key: string, body: Record<string, unknown>) => post(key, '/v1/webpage', body)

async function balanceOf(key: string): Promise<number> {
  const res = await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })
  return (await res.json()).balance
}

describe('POST /v1/extract', () => {
  test('reads a page: fields, meta and billing headers', async () => {
    const { key } = await newAccount()
    const res = await extract(key, { urls: [page('/article/ars')] })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.request).toEqual({
      urls: [page('/article/ars')],
      format: 'markdown',
      highlights: 0,
      include_links: false,
      include_images: false,
      timeout: 50,
      render: 'auto',
    })
    expect(body.failed).toEqual([])
    expect(body.results).toHaveLength(1)
    const r = body.results[0]
    expect(r).toMatchObject({ url: page('/article/ars'), status_code: 200, title: ARS_TITLE, published_at: '2015-04-16T20:02:01.000Z', cached: false })
    expect(r.metadata).toMatchObject({ site_name: 'Ars Technica', language: 'en-us' })
    expect(r.markdown).toContain(ARS_SENTENCE)
    for (const absent of ['text', 'html', 'links', 'images', 'highlights', 'cached_at']) expect(r).not.toHaveProperty(absent)
    expect(body.meta).toMatchObject({ request_id: res.headers.get('x-request-id'), credits_used: 1, succeeded: 1, failed: 0 })
    expect(body.meta.latency_ms).toBeGreaterThanOrEqual(0)
    expect(res.headers.get('x-credits-used')).toBe('1')
    expect(res.headers.get('x-credits-remaining')).toBe('99')
    expect(res.headers.get('x-cost-usd')).toBe('0.001')
    expect(res.headers.get('x-cache')).toBe('MISS')
    expect(Number(res.headers.get('x-tokens-estimate'))).toBe(countTokens(r.markdown))
    expect(Number(res.headers.get('x-latency-ms'))).toBeGreaterThanOrEqual(0)
  })

  test('format text and html return that field only', async () => {
    const { key } = await newAccount()
    const text = (await (await extract(key, { urls: [page('/article/ars')], format: 'text' })).json()).results[0]
    expect(text.text).toContain('A flaw in the wildly popular online game Minecraft makes it easy')
    expect(text.text).not.toContain('*Minecraft*')
    expect(text).not.toHaveProperty('markdown')
    const html = (await (await extract(key, { urls: [page('/article/ars')], format: 'html' })).json()).results[0]
    expect(html.html).toMatch(/<p>\s*A flaw in the wildly popular online game <em>Minecraft<\/em>/)
    expect(html).not.toHaveProperty('markdown')
  })

  test('max_tokens trims each page to at most that many tokens', async () => {
    const { key } = await newAccount()
    const full = (await (await extract(key, { urls: [page('/article/ars')] })).json()).results[0].markdown
    const res = await extract(key, { urls: [page('/article/ars')], max_tokens: 100 })
    const trimmed = (await res.json()).results[0].markdown
    expect(countTokens(full)).toBeGreaterThan(300)
    expect(countTokens(trimmed)).toBeLessThanOrEqual(100)
    expect(countTokens(trimmed)).toBeGreaterThan(50)
    expect(full.startsWith(trimmed)).toBe(true)
    expect(Number(res.headers.get('x-tokens-estimate'))).toBe(countTokens(trimmed))
  })

  test('highlights are BM25 passages of the whole page, deterministic, unaffected by max_tokens', async () => {
    const { key } = await newAccount()
    const query = 'Minecraft server crash exploit packet'
    const ask = async (extra: Record<string, unknown> = {}) =>
      (await (await extract(key, { urls: [page('/article/ars')], query, highlights: 3, ...extra })).json()).results[0]
    const first = await ask()
    expect(first.highlights).toHaveLength(3)
    for (const h of first.highlights) {
      expect(Object.keys(h).sort()).toEqual(['heading', 'score', 'text'])
      expect(h.score).toBeGreaterThan(0)
    }
    const scores = first.highlights.map((h: { score: number }) => h.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    expect(first.highlights).toEqual(rankHighlights(first.markdown, query, 3))
    expect((await ask()).highlights).toEqual(first.highlights)
    expect((await ask({ max_tokens: 100 })).highlights).toEqual(first.highlights)
    // From the cache too: the stored read is untrimmed, so the ranking is identical.
    const cached = await ask({ max_age: 3600, max_tokens: 100 })
    expect(cached.cached).toBe(true)
    expect(cached.highlights).toEqual(first.highlights)
    // HTML output ranks the Markdown rendering, so passages are text, not markup.
    const html = await ask({ format: 'html' })
    expect(html.highlights).toEqual(first.highlights)
  })

  test('highlights without query, and other bad input, are 400 naming the parameter', async () => {
    const { id, key } = await newAccount()
    const cases: [Record<string, unknown>, string][] = [
      [{ urls: [page('/article/ars')], highlights: 2 }, 'highlights requires query'],
      [{ urls: [page('/article/ars')], highlights: 11, query: 'x' }, 'highlights must be between 0 and 10'],
      [{ urls: [page('/article/ars')], max_tokens: 99 }, 'max_tokens must be between 100 and 100,000'],
      [{ urls: [page('/article/ars')], timeout: 91 }, 'timeout must be between 1 and 90 seconds'],
      [{ urls: [page('/article/ars')], format: 'json' }, 'format must be markdown, text or html'],
      [{ urls: [page('/article/ars')], query: 'x'.repeat(4097) }, 'query must be at most 4,096 characters'],
      [{ urls: [page('/article/ars')], country: 'xx' }, 'country must be a two-letter ISO code'],
      [{ urls: [page('/article/ars')], max_age: -1 }, 'max_age must be 0 or more seconds'],
      [{ urls: [] }, 'urls must list at least one URL'],
      [{}, 'urls is required'],
      [{ url: page('/article/ars') }, 'unknown parameter url: use urls'],
      [{ urls: [page('/article/ars')], formats: ['markdown'] }, 'unknown parameter formats'],
    ]
    for (const [body, message] of cases) {
      const res = await extract(key, body)
      const e = await errorOf(res)
      expect(e, JSON.stringify(body)).toMatchObject({ status: 400, code: 'invalid_request' })
      expect(e.message.startsWith(message), `${e.message} vs ${message}`).toBe(true)
      expect(res.headers.get('x-credits-used')).toBe('0')
    }
    expect(await balanceOf(key)).toBe(100)
    await expectBooksBalanced(trawl, id)
  })

  test('include_links and include_images list absolute URLs from the content', async () => {
    const { key } = await newAccount()
    const body = await (await extract(key, { urls: [page('/article/images'), page('/article/wiki')], include_links: true, include_images: true })).json()
    const [images, wiki] = body.results
    expect(images.images.length).toBeGreaterThan(3)
    expect(images.images).toContain('https://d262ilb51hltx0.cloudfront.net/max/2000/1*sLDnS1UWEFIS33uLMxq3cw.jpeg')
    for (const src of images.images) expect(src).toMatch(/^https?:\/\//)
    // Relative links resolve against the page's own address.
    expect(wiki.links.length).toBeGreaterThan(20)
    expect(wiki.links).toContainEqual({ url: page('/wiki/Netscape'), text: 'Netscape' })
    for (const l of wiki.links) expect(Object.keys(l).sort()).toEqual(['text', 'url'])
    const plain = (await (await extract(key, { urls: [page('/article/wiki')] })).json()).results[0]
    expect(plain).not.toHaveProperty('links')
  })

  test('duplicates are dropped after normalising (fragments, scheme case, dot segments)', async () => {
    const { key } = await newAccount()
    const a = page('/article/ars')
    const res = await extract(key, {
      urls: [a, `${a}#comments`, a, `HTTP://127.0.0.1:${site.port}/article/ars`, `http://127.0.0.1:${site.port}/article/../article/ars`],
    })
    const body = await res.json()
    expect(body.request.urls).toEqual([a])
    expect(body.results).toHaveLength(1)
    expect(body.meta.credits_used).toBe(1)
  })

  test('mixed success and failure: 200, each failure with its code, only live pages billed', async () => {
    const { id, key } = await newAccount(10)
    const res = await extract(key, {
      urls: [page('/article/ars'), page('/missing'), page('/image.png'), page('/empty'), 'not a url', 'ftp://example.com/file', page('/article/bbc')],
    })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.results.map((r: { url: string }) => r.url)).toEqual([page('/article/ars'), page('/article/bbc')])
    expect(body.failed).toEqual([
      { url: page('/missing'), error: { code: 'upstream_error', message: 'page answered HTTP 404' } },
      { url: page('/image.png'), error: { code: 'upstream_error', message: 'unsupported content type image/png' } },
      { url: page('/empty'), error: { code: 'empty_page', message: 'page has no readable content' } },
      { url: 'not a url', error: { code: 'invalid_request', message: 'url is not a valid URL: not a url' } },
      { url: 'ftp://example.com/file', error: { code: 'invalid_request', message: 'url must use http or https, not ftp' } },
    ])
    expect(body.meta).toMatchObject({ credits_used: 2, succeeded: 2, failed: 5 })
    expect(res.headers.get('x-credits-used')).toBe('2')
    expect(res.headers.get('x-credits-remaining')).toBe('8')
    expect(await balanceOf(key)).toBe(8)
    await expectBooksBalanced(trawl, id)
  })

  test('all failed: 200, nothing billed, X-Credits-Used 0', async () => {
    const { id, key } = await newAccount(5)
    const res = await extract(key, { urls: [page('/missing'), page('/empty')] })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.results).toEqual([])
    expect(body.meta).toMatchObject({ credits_used: 0, succeeded: 0, failed: 2 })
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(res.headers.get('x-cache')).toBe('MISS')
    expect(await balanceOf(key)).toBe(5)
    await expectBooksBalanced(trawl, id)
  })

  test('the reservation is 1 per URL up front: too small a balance is 402 before any fetch', async () => {
    const { id, key } = await newAccount(1)
    const before = site.seen.length
    const res = await extract(key, { urls: [page('/article/ars?r=1'), page('/article/ars?r=2')] })
    expect((await errorOf(res)).code).toBe('insufficient_credits')
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(site.seen.length).toBe(before)
    await expectBooksBalanced(trawl, id)
  })

  test('max_age: a cached page costs 0.5 and is not fetched; X-Cache HIT only when all are cached', async () => {
    const { id, key } = await newAccount(10)
    const url = page('/article/bbc?cache=1')
    await extract(key, { urls: [url] })
    const fetched = site.seen.filter((p) => p === '/article/bbc?cache=1').length
    const hit = await extract(key, { urls: [url], max_age: 3600, max_tokens: 200 })
    const body = await hit.json()
    expect(body.results[0]).toMatchObject({ url, cached: true, title: "Obama admits US gun laws are his 'biggest frustration' - BBC News" })
    expect(Date.parse(body.results[0].cached_at)).toBeLessThanOrEqual(Date.now())
    expect(countTokens(body.results[0].markdown)).toBeLessThanOrEqual(200)
    expect(body.meta.credits_used).toBe(0.5)
    expect(hit.headers.get('x-credits-used')).toBe('0.5')
    expect(hit.headers.get('x-cache')).toBe('HIT')
    expect(site.seen.filter((p) => p === '/article/bbc?cache=1').length).toBe(fetched)
    // One cached and one live page: 1.5 credits, and the call as a whole is not a cache hit.
    const mixed = await extract(key, { urls: [url, page('/article/ars?cache=2')], max_age: 3600 })
    expect(mixed.headers.get('x-credits-used')).toBe('1.5')
    expect(mixed.headers.get('x-cache')).toBe('MISS')
    expect((await mixed.json()).results.map((r: { cached: boolean }) => r.cached)).toEqual([true, false])
    // Without max_age the cache is never read; another format is another entry.
    expect((await (await extract(key, { urls: [url] })).json()).results[0].cached).toBe(false)
    expect((await (await extract(key, { urls: [url], format: 'text', max_age: 3600 })).json()).results[0].cached).toBe(false)
    expect(await balanceOf(key)).toBe(10 - 1 - 0.5 - 1.5 - 1 - 1)
    await expectBooksBalanced(trawl, id)
  })

  test('timeout: a page still loading goes to failed as upstream_timeout; the others are read', async () => {
    const { id, key } = await newAccount(10)
    const started = Date.now()
    const res = await extract(key, { urls: [page('/slow'), page('/article/ars')], timeout: 1 })
    expect(Date.now() - started).toBeLessThan(5000)
    const body = await res.json()
    expect(body.results.map((r: { url: string }) => r.url)).toEqual([page('/article/ars')])
    expect(body.failed).toEqual([{ url: page('/slow'), error: { code: 'upstream_timeout', message: 'page was still loading when the 1 s timeout ran out' } }])
    expect(res.headers.get('x-credits-used')).toBe('1')
    await expectBooksBalanced(trawl, id)
  })

  test('redirects are followed; url is the final address', async () => {
    const { key } = await newAccount()
    const body = await (await extract(key, { urls: [page('/redirect-twice')] })).json()
    expect(body.request.urls).toEqual([page('/redirect-twice')])
    expect(body.results[0]).toMatchObject({ url: page('/article/ars'), status_code: 200, title: ARS_TITLE })
  })

  test('legacy charsets (windows-1252 header, Shift_JIS meta) and gzip decode', async () => {
    const { key } = await newAccount()
    const body = await (await extract(key, { urls: [page('/cp1252'), page('/sjis'), page('/article/gzip')], format: 'text' })).json()
    expect(body.failed).toEqual([])
    const [cp, sjis, gz] = body.results
    expect(cp.title).toBe('Café notes')
    expect(cp.text).toContain('\u201cCafé au lait\u201d is the house favourite')
    expect(sjis.text).toContain('日本語')
    expect(gz.title).toBe("Browns player on Mason Rudolph's role in fight with Myles Garrett: He asked for it")
    expect(gz.text).toContain('"The most important thing is we lost that game," Heyward said')
  })

  test('PDFs are read like pages', async () => {
    const { key } = await newAccount()
    const body = await (await extract(key, { urls: [page('/doc.pdf')], query: 'crazy ones misfits rebels', highlights: 1 })).json()
    const r = body.results[0]
    expect(r).toMatchObject({ url: page('/doc.pdf'), status_code: 200, title: 'The Crazy Ones' })
    expect(r.metadata.pages).toBe(1)
    expect(r.markdown).toContain('The misfits. The rebels. The troublemakers.')
    expect(r.highlights[0].text).toContain('The rebels')
  })

  test('20 URLs are read 5 at a time; 21 is a 400', async () => {
    const { id, key } = await newAccount(30)
    const urls = Array.from({ length: 20 }, (_, i) => page(`/hold?n=${i}`))
    site.maxInFlight = 0
    const res = await extract(key, { urls })
    const body = await res.json()
    expect(body.meta).toMatchObject({ succeeded: 20, failed: 0, credits_used: 20 })
    expect(body.results.map((r: { url: string }) => r.url)).toEqual(urls)
    expect(site.maxInFlight).toBe(5)
    const tooMany = await extract(key, { urls: [...urls, page('/article/ars')] })
    expect(await errorOf(tooMany)).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: 'urls may list at most 20 URLs per call; send more with several calls',
    })
    expect(await balanceOf(key)).toBe(10)
    await expectBooksBalanced(trawl, id)
  })

  test("country reads through that country's proxy exit; a country without one is a 400 naming the exits", async () => {
    const { key } = await newAccount()
    const res = await extract(key, { urls: [page('/article/ars?via=us')], country: 'US' })
    const body = await res.json()
    expect(body.request.country).toBe('us')
    expect(body.results[0].title).toBe(ARS_TITLE)
    expect(proxy.tunnels).toContain(`127.0.0.1:${site.port}`)
    // With the flag on, a redirect from a "public" page (the proxy's in-process stand-in) to this machine is followed.
    const hop = await (await extract(key, { urls: ['http://[4000::1]/hop'], country: 'us' })).json()
    expect(hop.results[0]).toMatchObject({ url: page('/article/ars'), title: ARS_TITLE })
    expect(proxy.publicSeen).toEqual(['/hop'])
    const de = await errorOf(await extract(key, { urls: [page('/article/ars')], country: 'de' }))
    expect(de).toMatchObject({ status: 400, code: 'invalid_request', message: 'country de has no proxy exit on this server; available countries: us' })
  })
})

describe('POST /v1/webpage', () => {
  test('one page: the extract result plus meta, 1 credit', async () => {
    const { id, key } = await newAccount(10)
    const res = await webpage(key, { url: page('/redirect'), query: 'Minecraft crash', highlights: 2, include_links: true })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ url: page('/article/ars'), status_code: 200, title: ARS_TITLE, cached: false })
    expect(body.markdown).toContain(ARS_SENTENCE)
    expect(body.highlights).toHaveLength(2)
    expect(Array.isArray(body.links)).toBe(true)
    expect(body.meta).toEqual({ request_id: res.headers.get('x-request-id'), credits_used: 1, latency_ms: expect.any(Number), rendered: false })
    expect(res.headers.get('x-credits-used')).toBe('1')
    expect(res.headers.get('x-cache')).toBe('MISS')
    expect(Number(res.headers.get('x-tokens-estimate'))).toBe(countTokens(body.markdown))
    // The cache is shared with extract, keyed by the requested URL.
    const cached = await webpage(key, { url: page('/redirect'), include_links: true, max_age: 60 })
    expect(cached.headers.get('x-credits-used')).toBe('0.5')
    expect(cached.headers.get('x-cache')).toBe('HIT')
    expect((await cached.json()).cached).toBe(true)
    const viaExtract = await extract(key, { urls: [page('/redirect')], include_links: true, max_age: 60 })
    expect(viaExtract.headers.get('x-credits-used')).toBe('0.5')
    expect(await balanceOf(key)).toBe(8)
    await expectBooksBalanced(trawl, id)
  })

  test('Markdown opens with the page title as its one level-1 heading; text and html do not get it', async () => {
    const { key } = await newAccount(10)
    const md = await (await webpage(key, { url: page('/article/ars') })).json()
    expect(md.markdown.startsWith(`# ${ARS_TITLE}\n\n`)).toBe(true)
    expect(md.markdown.match(/^# /gm)).toHaveLength(1)
    expect(md.markdown).toContain(ARS_SENTENCE)
    // The same in every endpoint that reads pages (they share the reader).
    const viaExtract = await (await extract(key, { urls: [page('/article/ars')] })).json()
    expect(viaExtract.results[0].markdown).toBe(md.markdown)
    const text = await (await webpage(key, { url: page('/article/ars'), format: 'text' })).json()
    expect(text.text.startsWith(ARS_TITLE)).toBe(false)
    expect(text.title).toBe(ARS_TITLE)
  })

  test.each([
    ['/missing', 503, 'upstream_error', 'page answered HTTP 404'],
    ['/image.png', 503, 'upstream_error', 'unsupported content type image/png'],
    ['/slow', 503, 'upstream_timeout', 'page was still loading when the 1 s timeout ran out'],
  ])('%s fails as %i %s with Retry-After, not billed', async (path, status, code, message) => {
    const { id, key } = await newAccount(3)
    const res = await webpage(key, { url: page(path), timeout: 1 })
    expect(await errorOf(res)).toMatchObject({ status, code, message })
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(await balanceOf(key)).toBe(3)
    await expectBooksBalanced(trawl, id)
  })

  test('a dead link (404) says to come back in an hour, not in 5 s; a server error (5xx) in 5 s', async () => {
    const { key } = await newAccount(3)
    expect((await webpage(key, { url: page('/missing') })).headers.get('retry-after')).toBe('3600')
    const broken = await webpage(key, { url: page('/server-error') })
    expect(await errorOf(broken)).toMatchObject({ status: 503, code: 'upstream_error', message: 'page answered HTTP 500' })
    expect(broken.headers.get('retry-after')).toBe('5')
  })

  test('a bad URL is 400 invalid_request; urls is pointed to extract', async () => {
    const { key } = await newAccount(3)
    const bad = await webpage(key, { url: 'javascript:alert(1)' })
    expect(await errorOf(bad)).toMatchObject({ status: 400, code: 'invalid_request', message: 'url must use http or https, not javascript' })
    expect(bad.headers.get('x-credits-used')).toBe('0')
    expect((await errorOf(await webpage(key, { urls: [page('/article/ars')] }))).message).toBe(
      'unknown parameter urls: use url (one page), or POST /v1/extract for up to 20 pages',
    )
    expect((await errorOf(await webpage(key, {}))).message).toBe('url is required')
    expect(await balanceOf(key)).toBe(3)
  })

  test('an empty page is 200 with empty content and meta.empty_page, free', async () => {
    const { id, key } = await newAccount(3)
    const res = await webpage(key, { url: page('/empty'), format: 'text' })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ url: page('/empty'), status_code: 200, text: '', cached: false })
    expect(body.meta).toMatchObject({ credits_used: 0, empty_page: true })
    expect(res.headers.get('x-credits-used')).toBe('0')
    // Empty reads are never cached.
    expect((await (await webpage(key, { url: page('/empty'), format: 'text', max_age: 60 })).json()).cached).toBe(false)
    expect(await balanceOf(key)).toBe(3)
    await expectBooksBalanced(trawl, id)
  })

  test('GET is 405 with Allow: POST; the operation is in the OpenAPI document', async () => {
    const { key } = await newAccount(1)
    const get = await fetch(`${trawl.base}/v1/webpage?url=${encodeURIComponent(page('/article/ars'))}`, { headers: { authorization: `Bearer ${key}` } })
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
    const doc = await (await fetch(`${trawl.base}/v1/openapi.json`)).json()
    expect(doc.paths['/v1/extract'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('urls')
    expect(doc.paths['/v1/webpage'].post.requestBody.content['application/json'].schema.required).toEqual(['url'])
  })
})
