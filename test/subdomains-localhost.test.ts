import dns, { type LookupAddress, type LookupOptions } from 'node:dns'
import { createServer, type Server } from 'node:http'
import { syncBuiltinESMExports } from 'node:module'
import { type AddressInfo, isIP } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * include_subdomains under a single-label host: a site on `localhost` whose pages link to
 * `blog.localhost` and `shop.blog.localhost`, and whose sitemap names `docs.localhost`.
 *
 * Node 20 resolves no `*.localhost` name (getaddrinfo has no such rule, and `localhost` itself may
 * answer ::1 first), so this file answers name lookups itself: `localhost` and every name under it
 * are 127.0.0.1, any other name fails without a DNS query. Node's `dns.lookup` is replaced for this
 * test process (vitest runs each file in its own fork) and `syncBuiltinESMExports` hands the
 * replacement to the `import { lookup } from 'node:dns'` of the page fetcher. All traffic goes to
 * the one server on 127.0.0.1, which answers by Host header.
 */

const realLookup = dns.lookup
const asked: string[] = []

type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void
function loopbackLookup(hostname: string, options: LookupOptions | number | Callback, callback?: Callback) {
  const cb = (typeof options === 'function' ? options : callback)!
  const all = typeof options === 'object' && options.all === true
  const name = hostname.toLowerCase().replace(/\.$/, '')
  // IP literals (server.listen asks for them too) are themselves, with no lookup to record.
  const family = isIP(name)
  if (family === 0) asked.push(hostname)
  if (family !== 0 || name === 'localhost' || name.endsWith('.localhost')) {
    const address = family !== 0 ? name : '127.0.0.1'
    const fam = family || 4
    process.nextTick(() => (all ? cb(null, [{ address, family: fam }]) : cb(null, address, fam)))
  } else {
    const err: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname })
    process.nextTick(() => cb(err, all ? [] : ''))
  }
}

const PROSE = 'This is a real article with enough words in it for a reader to keep it as content: it explains, argues and concludes, sentence after sentence. '
const article = (title: string, links: string[]) =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${PROSE.repeat(3)}</p>
<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></article></body></html>`

let server: Server
let port = 0
/** Host and path of every request the site answered. */
const requests: string[] = []
let trawl: Trawl
let key: string

/** The site's pages by host (port left out) and path. */
function page(host: string, path: string): { type: string; body: string } | null {
  const at = (h: string, p: string) => `http://${h}:${port}${p}`
  const html = (body: string) => ({ type: 'text/html; charset=utf-8', body })
  switch (`${host}${path}`) {
    case 'localhost/robots.txt':
      return { type: 'text/plain', body: `User-agent: *\nAllow: /\n\nSitemap: ${at('localhost', '/sitemap.xml')}\n` }
    case 'localhost/sitemap.xml':
      return {
        type: 'application/xml',
        body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${at('localhost', '/about')}</loc></url><url><loc>${at('docs.localhost', '/guide')}</loc></url></urlset>`,
      }
    case 'localhost/':
      return html(
        article('Home', [
          '/about',
          at('blog.localhost', '/'),
          at('blog.localhost', '/post-1'),
          at('shop.blog.localhost', '/cart'),
          // Neither is under localhost: a name that merely ends in "localhost", and the bare address.
          at('otherlocalhost', '/x'),
          at('127.0.0.1', '/ip'),
        ]),
      )
    case 'localhost/about':
      return html(article('About', ['/']))
    case 'blog.localhost/':
      return html(article('Blog', ['/post-1', '/post-2']))
    case 'blog.localhost/post-1':
      return html(article('Post one', ['/']))
    case 'blog.localhost/post-2':
      return html(article('Post two', ['/']))
    case 'shop.blog.localhost/cart':
      return html(article('Cart', []))
    case 'docs.localhost/guide':
      return html(article('Guide', []))
    default:
      return null
  }
}

beforeAll(async () => {
  dns.lookup = loopbackLookup as typeof dns.lookup
  syncBuiltinESMExports()
  server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '')
    const path = (req.url ?? '/').split('?')[0]!
    requests.push(`${host}${path}`)
    const answer = page(host, path)
    if (answer) res.writeHead(200, { 'content-type': answer.type }).end(answer.body)
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_SCHEDULER_POLL_MS: '200' }, { workers: true })
  key = (await trawl.account({ plan: 'pro', credits: 100 })).key
})
afterAll(async () => {
  await trawl?.close()
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  dns.lookup = realLookup
  syncBuiltinESMExports()
})

const post = (path: string, body: unknown) =>
  fetch(`${trawl.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
const url = (host: string, path: string) => `http://${host}:${port}${path}`
const urlsOf = (items: { url: string }[]) => items.map((r) => r.url).sort()

/** Every name looked up was localhost or under it, so every connection went to 127.0.0.1. */
function expectOnlyLoopbackNames() {
  expect(asked.length).toBeGreaterThan(0)
  for (const name of asked) expect(name).toMatch(/(?:^|\.)localhost$/)
}

describe('a site on localhost with subdomains below it', () => {
  test('/v1/map takes in *.localhost with include_subdomains, and only localhost without', async () => {
    const wide = await (await post('/v1/map', { url: url('localhost', '/'), include_subdomains: true })).json()
    expect(urlsOf(wide.results)).toEqual(
      [
        url('localhost', '/'),
        url('localhost', '/about'),
        url('docs.localhost', '/guide'),
        url('blog.localhost', '/'),
        url('blog.localhost', '/post-1'),
        url('shop.blog.localhost', '/cart'),
      ].sort(),
    )
    expect(wide.request.include_subdomains).toBe(true)
    const narrow = await (await post('/v1/map', { url: url('localhost', '/') })).json()
    expect(urlsOf(narrow.results)).toEqual([url('localhost', '/'), url('localhost', '/about')])
    expectOnlyLoopbackNames()
  })

  test('/v1/crawl follows links into *.localhost with include_subdomains, and stays on localhost without', async () => {
    const crawl = async (body: Record<string, unknown>) => {
      const { id } = await (await post('/v1/crawl', body)).json()
      for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        const task = await (await fetch(`${trawl.base}/v1/crawl/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()
        if (['completed', 'failed', 'canceled'].includes(task.status)) return task
      }
      throw new Error(`crawl ${id} did not end`)
    }
    const before = requests.length
    const wide = await crawl({ url: url('localhost', '/'), include_subdomains: true, max_depth: 2, limit: 20 })
    expect(wide.status).toBe('completed')
    expect(urlsOf(wide.result.pages)).toEqual(
      [
        url('localhost', '/'),
        url('localhost', '/about'),
        url('docs.localhost', '/guide'),
        url('blog.localhost', '/'),
        url('blog.localhost', '/post-1'),
        url('blog.localhost', '/post-2'),
        url('shop.blog.localhost', '/cart'),
      ].sort(),
    )
    // Nothing off the site was fetched: not the look-alike name, not the bare address.
    expect(requests.slice(before).filter((r) => !/^(?:[a-z.]+\.)?localhost\//.test(r))).toEqual([])

    const narrow = await crawl({ url: url('localhost', '/'), max_depth: 2, limit: 20 })
    expect(urlsOf(narrow.result.pages)).toEqual([url('localhost', '/'), url('localhost', '/about')])
    expectOnlyLoopbackNames()
  })
})
