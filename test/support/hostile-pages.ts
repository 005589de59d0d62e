import type { IncomingMessage, ServerResponse } from 'node:http'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { searxngAnswer } from '../../src/engines/searxng/searxng.fixture.ts'
import type { PathHandler } from './path-server.ts'

/**
 * Pages and engine answers built to stall the server (docs/operations.md, "Hostile pages and engine
 * answers"): served by `pathServer(hostileRoutes)` and `fakeUpstream(hostileSearx(...))` for
 * test/security-hostile-pages.test.ts and bench/hostile.bench.ts alike.
 */

/** Deterministic letters (the same page every run), hard for o200k: no run repeats. */
export function randomText(length: number, alphabet: string[]): string {
  let seed = 41
  const out: string[] = []
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    out.push(alphabet[seed % alphabet.length]!)
  }
  return out.join('')
}
/** The Latin lower-case letters. */
export const LETTERS = [...'abcdefghijklmnopqrstuvwxyz']
/** 3,000 CJK ideographs from U+4E00. */
export const HAN = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(0x4e00 + i))

/** One word of 1,000,000 letters. */
export const WORD = randomText(1_000_000, LETTERS)
/** 120,000 Chinese characters without a break or a punctuation mark. */
export const HAN_RUN = randomText(120_000, HAN)
/** An HTML article page: `title` as its title and heading, `body` as its one paragraph. */
export const article = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${body}</p></article></body></html>`

/** An ordinary article, long enough to be read as one. */
export const PROSE = article('Stacked', 'A paragraph of an ordinary article, long enough to be read as its content. '.repeat(40))

/** `body` gzipped `times` times over, with the header that says so. */
export function stackedGzip(body: string, times: number): { bytes: Buffer; encoding: string } {
  let bytes = Buffer.from(body)
  for (let i = 0; i < times; i++) bytes = gzipSync(bytes, { level: 1 })
  return { bytes, encoding: Array.from({ length: times }, () => 'gzip').join(', ') }
}
/** PROSE with gzip listed 2,000 times. */
export const STACKED = stackedGzip(PROSE, 2000)
/** PROSE as brotli over gzip: two codings, which are still decoded. */
export const TWO = { bytes: brotliCompressSync(gzipSync(Buffer.from(PROSE))), encoding: 'gzip, br' }
/** 11 MB of 'a' gzipped: past the 10 MB cap once decoded. */
export const BOMB = gzipSync(Buffer.alloc(11 * 1024 * 1024, 'a'))
/** An article whose text sits inside 100,000 nested elements (1.1 MB): no real page nests past a few hundred. */
export const DEEP = article(
  'Deep',
  `${'<div><span>'.repeat(50_000)}The text at the bottom of a very deep page, still worth reading as the page's content. ${'</span></div>'.repeat(50_000)}`,
)

/** A route answering `page` as HTML. */
export const html =
  (page: string): PathHandler =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
/** A route answering `bytes` as HTML sent with Content-Encoding `encoding`. */
export const encoded =
  (bytes: Buffer, encoding: string): PathHandler =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': encoding }).end(bytes)

/** The hostile pages by path, for `pathServer`. */
export const hostileRoutes: Record<string, PathHandler> = {
  '/long-word': html(article('One long word', WORD)),
  '/han-run': html(article('一段没有标点的文字', HAN_RUN)),
  '/special-tokens': html(article('Special tokens', `A page that quotes a model's markers <|endoftext|> and <|im_start|> as text. `.repeat(10))),
  '/stacked': encoded(STACKED.bytes, STACKED.encoding),
  '/two-codings': encoded(TWO.bytes, TWO.encoding),
  '/bomb': encoded(BOMB, 'gzip'),
  '/deep': html(DEEP),
}

/** The host Trawl is told SearXNG is at (TRAWL_SEARXNG_URL); TRAWL_UPSTREAM_HOSTS sends it to the fake. */
export const SEARX_HOST = 'searx.test:8888'
/** A result title of 112,000 characters of words. */
export const LONG_TITLE = 'A title that goes on and on '.repeat(4000)
/** A result snippet of one word of 50,000 letters. */
export const LONG_SNIPPET = randomText(50_000, LETTERS)

/**
 * A fake SearXNG: "stacked pages" gives three results on the page site (`siteBase()`, read when
 * asked, as the site starts after the handler is made), each /stacked; any other query gives the
 * long title and snippet, a link of 10,000 characters, an ordinary result and 5,000 suggestions.
 */
export const hostileSearx =
  (siteBase: () => string) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x')
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    const q = url.searchParams.get('q') ?? ''
    if (q === 'stacked pages') {
      const results = [1, 2, 3].map((n) => ({ url: `${siteBase()}/stacked?n=${n}`, title: `Stacked ${n}`, content: 'A page.', engine: 'bing' }))
      json(searxngAnswer({ results, answers: [], infoboxes: [], suggestions: [] }))
      return
    }
    json(
      searxngAnswer({
        results: [
          { url: 'https://long.example/title', title: LONG_TITLE, content: LONG_SNIPPET, engine: 'bing' },
          { url: `https://long.example/${'x'.repeat(10_000)}`, title: 'A link no browser would send', content: 'dropped', engine: 'bing' },
          { url: 'https://short.example/', title: 'An ordinary result', content: 'An ordinary snippet.', engine: 'bing' },
        ],
        suggestions: Array.from({ length: 5000 }, (_, i) => `suggestion ${i}`),
      }),
    )
  }
