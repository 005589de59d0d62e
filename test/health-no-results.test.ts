import { afterAll, beforeAll, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Engine health through the HTTP API when the engine's own answer says it has nothing: an empty
 * suggestion list, a news feed without items. Those are clean answers; a run of them must not
 * make the provider `drifting` (which `/healthz` reports and `auto` acts on).
 */
let upstream: FakeUpstream
let trawl: Trawl
let key: string
beforeAll(async () => {
  upstream = await fakeUpstream((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const host = req.headers['x-forwarded-host']
    if (host === 'www.google.com' && url.pathname === '/complete/search') {
      return res.writeHead(200, { 'content-type': 'text/javascript; charset=UTF-8' }).end(JSON.stringify([url.searchParams.get('q'), []]))
    }
    if (host === 'news.google.com' && url.pathname === '/rss/search') {
      const feed = '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>"zzqx" - Google News</title></channel></rss>'
      return res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' }).end(feed)
    }
    res.writeHead(404).end()
  })
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}` })
  key = (await trawl.account({ plan: 'pro', credits: 100 })).key
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})

const get = async (path: string) => (await fetch(`${trawl.base}${path}`, { headers: { authorization: `Bearer ${key}` } })).json()

test('eight empty suggestion lists and eight news feeds without items leave Google healthy, and are free', async () => {
  for (let i = 0; i < 8; i++) {
    for (const vertical of ['autocomplete', 'news']) {
      const body = await get(`/v1/${vertical}?q=zzqx${i}`)
      expect(body.results).toEqual([])
      expect(body.meta).toMatchObject({ engine: 'google', parse_quality: 'empty', credits_used: 0 })
      expect(Object.keys(body)).not.toContain('saysNoResults')
    }
  }
  const google = (await get('/v1/engines')).engines.find((e: { name: string }) => e.name === 'google')
  expect(google.state).toBe('healthy')
  const layouts = Object.fromEntries(google.layouts.map((l: { layout: string }) => [l.layout, l]))
  for (const vertical of ['autocomplete', 'news']) expect(layouts[vertical]).toMatchObject({ state: 'healthy', requests: 8, unreadable_rate: 0 })
  expect((await (await fetch(`${trawl.base}/healthz`)).json()).engines).toMatchObject({ drifting: 0 })
})
