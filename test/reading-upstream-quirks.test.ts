import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { readFixture } from './support/fixtures.ts'
import { pathServer } from './support/path-server.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Pages that misbehave in ways a reader must not blame on the caller: a redirect to a scheme we do
 * not fetch, a PDF with a banner before its header, an empty PDF.
 */
const PDF = readFixture('corpora/pdfs-pypdf/resources/crazyones.pdf')
// What Ghostscript writes before the header when its banner goes to the same stream (readers accept
// a header anywhere in the first 1024 bytes).
const BANNER = Buffer.from(
  'GPL Ghostscript 10.02.0 (2023-09-13)\nCopyright (C) 2023 Artifex Software, Inc.  All rights reserved.\n' +
    'This software is supplied under the GNU AGPLv3 and comes with NO WARRANTY:\nsee the file COPYING for details.\nProcessing pages 1 through 1.\nPage 1\n',
)

type Handler = (req: IncomingMessage, res: ServerResponse) => void
/** An article page with `head` inside its <head>. */
const storyPage = (title: string, head: string) =>
  `<html><head><title>${title}</title>${head}</head><body><article><h1>${title}</h1><p>${`A paragraph of ${title.toLowerCase()}, long enough to be read as its content. `.repeat(5)}</p></article></body></html>`
const body =
  (content: Buffer | string, type: string): Handler =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': type }).end(content)
const redirect =
  (location: string): Handler =>
  (_req, res) =>
    res.writeHead(302, { location }).end()

const routes: Record<string, Handler> = {
  '/redirect-ftp': redirect('ftp://127.0.0.1/x'),
  '/redirect-credentials': redirect('http://user:pw@127.0.0.1/x'),
  '/banner.pdf': body(Buffer.concat([BANNER, PDF]), 'application/pdf'),
  '/banner-untyped.pdf': body(Buffer.concat([BANNER, PDF]), 'application/octet-stream'),
  '/empty.pdf': body(Buffer.alloc(0), 'application/pdf'),
  '/blank.pdf': body(' \r\n\t\n', 'application/pdf'),
  '/not-a.pdf': body('<html><body><p>Sorry, the %PDF- file is gone</p></body></html>', 'application/pdf'),
  '/moved': body('<html><head><meta http-equiv="refresh" content="0; url=/article"><title>Moved</title></head><body>Redirecting</body></html>', 'text/html'),
  '/moved-loop': body('<html><head><meta http-equiv="refresh" content="0; url=/moved-loop-2"></head><body>Redirecting</body></html>', 'text/html'),
  '/moved-loop-2': body('<html><head><meta http-equiv="refresh" content="0; url=/moved-loop"></head><body>Redirecting</body></html>', 'text/html'),
  // What every CNN article page carries: a refresh for old Internet Explorers, inside a conditional
  // comment. No browser of today follows it (to a page that does not exist here either).
  '/ie-refresh': body(
    storyPage(
      'The story page',
      '<!--[if lte IE 9]><meta http-equiv="refresh" content="1;url=/2024/static/unsupp.html"><![endif]--><meta name="x" content="y">',
    ),
    'text/html',
  ),
  '/noscript-refresh': body(storyPage('The noscript page', '<noscript><meta http-equiv="refresh" content="0; url=/no-js"></noscript>'), 'text/html'),
  '/slow-refresh': body(storyPage('The slow page', '<meta http-equiv="refresh" content="30; url=/article">'), 'text/html'),
  // A client-side template: markup a script may use one day, not the document's own.
  '/template-refresh': body(
    storyPage('The template page', '<script type="text/template"><meta http-equiv="refresh" content="0; url=/no-js"></script>'),
    'text/html',
  ),
  '/refresh-to-dead': body(storyPage('The page that moved nowhere', '<meta http-equiv="refresh" content="0; url=/gone">'), 'text/html'),
  '/article': body(
    `<html><head><title>The article</title></head><body><article><h1>The article</h1><p>${'A paragraph of the article that moved, long enough to be read as its content. '.repeat(5)}</p></article></body></html>`,
    'text/html',
  ),
}

let site: Awaited<ReturnType<typeof pathServer>>
let base = ''
let trawl: Trawl

beforeAll(async () => {
  site = await pathServer(routes)
  base = site.base
  trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true' })
})
afterAll(async () => {
  await trawl?.close()
  await site?.close()
})

const page = (path: string) => `${base}${path}`
const newAccount = () => trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 10 })
const post = (key: string, path: string, payload: unknown) =>
  fetch(`${trawl.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  })

describe('a redirect the reader cannot follow is the page’s failure, not the caller’s', () => {
  test.each([
    ['/redirect-ftp', 'page redirected to an unsupported scheme (ftp)'],
    ['/redirect-credentials', 'page redirected to a URL with credentials'],
  ])('%s on /v1/webpage: 503 upstream_error with Retry-After, not billed', async (path, message) => {
    const { id, key } = await newAccount()
    const res = await post(key, '/v1/webpage', { url: page(path) })
    expect(await errorOf(res)).toMatchObject({ status: 503, code: 'upstream_error', message })
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(await expectBooksBalanced(trawl, id)).toBe(10)
  })

  test('on /v1/extract it is a failed[] upstream_error', async () => {
    const { key } = await newAccount()
    const res = await post(key, '/v1/extract', { urls: [page('/redirect-ftp')] })
    expect(res.status).toBe(200)
    expect((await res.json()).failed).toEqual([
      { url: page('/redirect-ftp'), error: { code: 'upstream_error', message: 'page redirected to an unsupported scheme (ftp)' } },
    ])
  })
})

describe('PDF sniffing', () => {
  test.each(['/banner.pdf', '/banner-untyped.pdf'])('%s: a header after a banner (within 1024 bytes) is read', async (path) => {
    const { key } = await newAccount()
    const res = await post(key, '/v1/webpage', { url: page(path) })
    expect(res.status).toBe(200)
    const read = await res.json()
    expect(read.title).toBe('The Crazy Ones')
    expect(read.markdown).toContain('Heres to the crazy ones')
    expect(read.markdown).not.toContain('Ghostscript')
    expect(res.headers.get('x-credits-used')).toBe('1')
  })

  test.each(['/empty.pdf', '/blank.pdf'])('%s: an empty PDF body is an empty page, free', async (path) => {
    const { id, key } = await newAccount()
    const res = await post(key, '/v1/webpage', { url: page(path) })
    expect(res.status).toBe(200)
    const read = await res.json()
    expect(read).toMatchObject({ url: page(path), status_code: 200, markdown: '' })
    expect(read.meta).toMatchObject({ credits_used: 0, empty_page: true })
    const extracted = await (await post(key, '/v1/extract', { urls: [page(path)] })).json()
    expect(extracted.failed).toEqual([{ url: page(path), error: { code: 'empty_page', message: 'page has no readable content' } }])
    expect(await expectBooksBalanced(trawl, id)).toBe(10)
  })

  test('an HTML page sent as application/pdf is still refused, even when it mentions %PDF-', async () => {
    const { key } = await newAccount()
    const res = await post(key, '/v1/webpage', { url: page('/not-a.pdf') })
    expect(await errorOf(res)).toMatchObject({ status: 503, code: 'upstream_error', message: 'unsupported content type application/pdf (body is not a PDF)' })
  })
})

describe('a <meta http-equiv="refresh"> redirect is followed, as a browser does', () => {
  test('the page it leads to is read and billed, not the stub', async () => {
    const { key } = await newAccount()
    const read = await (await post(key, '/v1/webpage', { url: page('/moved') })).json()
    expect(read).toMatchObject({ url: page('/article'), title: 'The article' })
    expect(read.markdown).toContain('A paragraph of the article that moved')
  })

  test.each([
    ['/ie-refresh', 'in an IE conditional comment', 'The story page'],
    ['/noscript-refresh', 'inside <noscript>', 'The noscript page'],
    ['/template-refresh', 'in a script template', 'The template page'],
    ['/slow-refresh', 'after 30 s', 'The slow page'],
  ])('a refresh no browser acts on at once (%s, %s) is not followed: the page itself is read', async (path, _why, title) => {
    const { id, key } = await newAccount()
    const res = await post(key, '/v1/webpage', { url: page(path) })
    expect(res.status).toBe(200)
    const read = await res.json()
    expect(read).toMatchObject({ url: page(path), title })
    expect(read.markdown).toContain(`A paragraph of ${title.toLowerCase()}`)
    expect(await expectBooksBalanced(trawl, id)).toBe(9)
  })

  test('a refresh whose target cannot be read answers the page that asked for it', async () => {
    const { id, key } = await newAccount()
    const res = await post(key, '/v1/webpage', { url: page('/refresh-to-dead') })
    expect(res.status).toBe(200)
    const read = await res.json()
    expect(read).toMatchObject({ url: page('/refresh-to-dead'), title: 'The page that moved nowhere' })
    expect(read.markdown).toContain('A paragraph of the page that moved nowhere')
    const many = await (await post(key, '/v1/extract', { urls: [page('/refresh-to-dead'), page('/ie-refresh')] })).json()
    expect(many.failed).toEqual([])
    expect(many.results.map((r: { url: string }) => r.url)).toEqual([page('/refresh-to-dead'), page('/ie-refresh')])
    expect(await expectBooksBalanced(trawl, id)).toBe(7)
  })

  test('a loop of refreshes ends after a few hops with the last page read', async () => {
    const { key } = await newAccount()
    const res = await post(key, '/v1/webpage', { url: page('/moved-loop') })
    expect(res.status).toBe(200)
    expect(new URL((await res.json()).url).pathname).toMatch(/^\/moved-loop/)
  })
})
