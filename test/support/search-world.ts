import { searxngAnswer } from '../../src/engines/searxng/searxng.fixture.ts'
import { type FakeUpstream, fakeUpstream } from './fake-upstream.ts'

/**
 * What the model-feature tests (answers, schema fill, research, their MCP, CLI and playground doors)
 * search and read: a loopback site serving `pages` by path, and a fake SearXNG answering every query
 * with the site's `results()` paths in order. Point Trawl at them with `searchWorldEnv`.
 */
export async function searchWorld(
  pages: Readonly<Record<string, string>>,
  results: () => readonly string[],
): Promise<{ site: FakeUpstream; searx: FakeUpstream }> {
  const site = await fakeUpstream((req, res) => {
    const html = pages[(req.url ?? '/').split('?')[0]!]
    if (!html) return res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
  })
  const searx = await fakeUpstream((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q')
    const list = results().map((path, i) => ({ url: `${site.url}${path}`, title: `Result ${i + 1}`, content: '', engine: 'google', engines: ['google'] }))
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(searxngAnswer({ query: q, results: list, answers: [], infoboxes: [] })))
  })
  return { site, searx }
}

/** Trawl's settings for a search world: SearXNG as the engine, the site readable on loopback, no browser. */
export const searchWorldEnv = (searx: FakeUpstream) => ({
  TRAWL_UPSTREAM_HOSTS: `*=${searx.url}`,
  TRAWL_SEARXNG_URL: 'http://searx.test:8888',
  TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
  TRAWL_BROWSER: 'off',
})

/** A plain article page: a title and its paragraphs. */
export const articlePage = (title: string, ...paragraphs: string[]) =>
  `<!DOCTYPE html><html lang="en"><head><title>${title}</title></head><body><article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</article></body></html>`

/** Two product pages the schema tests fill PRODUCT_SCHEMA from, searched in this order. */
export const PRODUCT_PAGES: Record<string, string> = {
  '/kettle': articlePage(
    'Aurora electric kettle',
    'The Aurora is a 1.7 litre electric kettle. An electric kettle brings one litre of water to the boil in about three minutes.',
    'It costs 39.50 euros and comes with a two-year warranty.',
  ),
  '/toaster': articlePage('Helios toaster', 'The Helios toaster has four slots and a bagel setting. It costs 59 euros and is sold out until spring.'),
}
export const PRODUCT_RESULTS = ['/kettle', '/toaster']
export const PRODUCT_SCHEMA = { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name', 'price'] }
/** A question the kettle page answers. */
export const KETTLE_QUESTION = 'how long does an electric kettle take to boil water'
