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
