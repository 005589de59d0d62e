import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The cached hot path keeps the completed shape and JSON text of the frozen cached body
 * (output/stable-shape.ts): a replay must send what a fresh render of the same body sends.
 */
describe('cached /v1/search replays', () => {
  let trawl: Trawl
  let upstream: FakeUpstream
  let key: string
  beforeAll(async () => {
    upstream = await fakeUpstream(htmlPage(fixture('serp/google/web-desktop/zlurad-coffee.html')))
    trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '15000' })
    key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 100_000, credits: 100 })).key
  })
  afterAll(async () => {
    await trawl.close()
    await upstream.close()
  })

  const search = (extra: string) => fetch(`${trawl.base}/v1/search?q=replay${extra}`, { headers: { authorization: `Bearer ${key}` } })
  const withoutMeta = (body: Record<string, unknown>) => ({ ...body, meta: undefined })

  test('every format of a replayed body is the live answer with a new meta, again and again', async () => {
    const live = await search('&num=20')
    expect(live.headers.get('x-cache')).toBe('MISS')
    const liveBody = await live.json()
    for (const format of ['json', 'compact']) {
      const fresh = await (await search(`&num=20&format=${format}`)).json()
      for (let i = 0; i < 3; i++) {
        const hit = await search(`&num=20&format=${format}&max_age=3600`)
        expect(hit.headers.get('x-cache')).toBe('HIT')
        const body = await hit.json()
        expect(withoutMeta(body)).toEqual(withoutMeta(fresh))
        expect(Object.keys(body)).toEqual(Object.keys(fresh))
        expect(body.meta).toMatchObject({ cached: true, credits_used: 1, request_id: hit.headers.get('x-request-id') })
      }
    }
    expect(Object.keys(liveBody)).toContain('people_also_ask')
    const fields = await search('&num=20&max_age=3600&fields=results.title,meta.cached')
    const projected = await fields.json()
    expect(projected.results).toEqual(liveBody.results.map((r: { title: string }) => ({ title: r.title })))
    expect(projected.meta.cached).toBe(true)
    const markdown = await search('&num=20&max_age=3600&format=markdown')
    expect(markdown.headers.get('content-type')).toMatch(/markdown/)
    expect(await markdown.text()).toContain(liveBody.results[0].title)
  })
})
