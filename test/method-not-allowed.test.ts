import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * A known path asked with a method it does not take is 405 with `Allow` and a hint in the error
 * envelope (each compatible API's in its own shape), not 404 "no route": GET on every POST-only
 * route of the OpenAPI document, and the other methods on a few. Unknown paths stay 404.
 */

let trawl: Trawl
let key: string
let doc: { paths: Record<string, Record<string, unknown>> }

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete']
/** A concrete URL for a templated path: `/v1/crawl/{id}` → `/v1/crawl/x0`. */
const concrete = (path: string) => path.replaceAll(/\{[^}]+\}/g, 'x0')
const call = (method: string, path: string) => fetch(`${trawl.base}${concrete(path)}`, { method, headers: { authorization: `Bearer ${key}` } })

beforeAll(async () => {
  trawl = await startTrawl()
  ;({ key } = await trawl.account({ credits: 10 }))
  doc = await (await fetch(`${trawl.base}/v1/openapi.json`)).json()
})
afterAll(async () => {
  await trawl?.close()
})

describe('405 Method Not Allowed', () => {
  test('GET on every POST-only route of the OpenAPI document: 405, Allow lists its methods, nothing billed', async () => {
    const postOnly = Object.entries(doc.paths)
      .map(([path, ops]) => ({ path, methods: Object.keys(ops).filter((m) => METHODS.includes(m)) }))
      .filter(({ methods }) => methods.includes('post') && !methods.includes('get'))
      // Serper's routes take GET too (its code samples send the query string), undocumented.
      .filter(({ path }) => !path.startsWith('/compat/serper/'))
    // The reading and job routes, the compatible APIs' POST routes, and more: a sanity floor.
    expect(postOnly.map((r) => r.path)).toEqual(expect.arrayContaining(['/v1/webpage', '/v1/extract', '/v1/map', '/v1/crawl', '/v1/batches']))
    expect(postOnly.length).toBeGreaterThan(10)
    const wrong: string[] = []
    for (const { path, methods } of postOnly) {
      const res = await call('GET', path)
      const allow = res.headers.get('allow')
      const body = await res.text()
      const expected = methods.map((m) => m.toUpperCase())
      if (res.status !== 405 || allow?.split(', ').sort().join() !== expected.sort().join()) wrong.push(`${path}: ${res.status} Allow=${allow} ${body}`)
      expect(res.headers.get('x-credits-used') ?? '0').toBe('0')
    }
    expect(wrong).toEqual([])
  })

  test("Trawl's own routes answer the envelope with a hint: which method, and how to send the parameters", async () => {
    const res = await call('GET', '/v1/webpage?url=https://example.com/')
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    expect(res.headers.get('x-request-id')).toMatch(/^req_/)
    const { error } = await res.json()
    expect(error).toEqual({
      code: 'invalid_request',
      message:
        'GET /v1/webpage is not allowed: this route takes POST only; send the parameters as a JSON body with Content-Type: application/json (API reference: /docs)',
      request_id: res.headers.get('x-request-id'),
    })
  })

  test('other methods too: PUT on a GET+POST route, DELETE on a POST-only one, HEAD on a POST-only one', async () => {
    const put = await call('PUT', '/v1/search')
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST')
    expect((await put.json()).error.message).toMatch(/^PUT \/v1\/search is not allowed: this route takes GET, POST; send the parameters/)
    const del = await call('DELETE', '/v1/batches')
    expect([del.status, del.headers.get('allow')]).toEqual([405, 'POST'])
    const head = await call('HEAD', '/v1/extract')
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'POST'])
    // A path with parameters: /v1/crawl/{id} takes GET and DELETE.
    const post = await call('POST', '/v1/crawl/{id}')
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD, DELETE'])
    // A trailing slash is the same route (ignoreTrailingSlash).
    expect((await call('GET', '/v1/webpage/')).status).toBe(405)
  })

  test('compatible APIs answer 405 in their own shape', async () => {
    const firecrawl = await call('GET', '/compat/firecrawl/v2/scrape')
    expect(firecrawl.status).toBe(405)
    expect(firecrawl.headers.get('allow')).toBe('POST')
    expect(await firecrawl.json()).toMatchObject({ success: false, code: 'BAD_REQUEST', error: expect.stringMatching(/takes POST only/) })
    const tavily = await call('GET', '/compat/tavily/extract')
    expect(tavily.status).toBe(405)
    expect((await tavily.json()).detail.error).toMatch(/takes POST only/)
    const serper = await call('DELETE', '/compat/serper/search')
    expect([serper.status, serper.headers.get('allow')]).toEqual([405, 'GET, HEAD, POST'])
    expect(await serper.json()).toMatchObject({ statusCode: 405, code: 'invalid_request' })
  })

  test('unknown paths stay 404 not_found, the operator API too (absent without its token, no method list)', async () => {
    const unknown = await call('GET', '/v1/nothing-here')
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('allow')).toBeNull()
    expect((await unknown.json()).error).toMatchObject({ code: 'not_found', message: 'no route GET /v1/nothing-here' })
    expect((await call('POST', '/v1/crawl/x0/y')).status).toBe(404)
    const admin = await fetch(`${trawl.base}/admin/v1/accounts`, { method: 'PATCH' })
    expect([admin.status, admin.headers.get('allow')]).toEqual([404, null])
  })
})
