import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { errorOf } from './support/books.ts'
import { type FakeUpstream, fakeUpstream, htmlPage } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * How the public API reads its input: CORS preflights for every method it serves, an empty JSON
 * body read as no body, parameters in the wrong place or under another API's name refused with
 * a message that says what to send instead.
 */

let trawl: Trawl
let upstream: FakeUpstream
let key: string
beforeAll(async () => {
  // Crawls and monitors are only queued (no workers), so the page is never fetched.
  upstream = await fakeUpstream(htmlPage('<html><body><p>page</p></body></html>'))
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_ALLOW_PRIVATE_NETWORK: 'true' })
  key = (await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 1000 })).key
})
afterAll(async () => {
  await trawl.close()
  await upstream.close()
})

/** A client that sends `Content-Type: application/json` on every request, with or without a body. */
const call = (method: string, path: string, body?: string) =>
  fetch(`${trawl.base}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body })
const get = (path: string) => fetch(`${trawl.base}${path}`, { headers: { authorization: `Bearer ${key}` } })

describe('CORS', () => {
  test.each([
    ['DELETE', '/v1/crawl/abc'],
    ['PATCH', '/v1/monitors/abc'],
    ['DELETE', '/v1/monitors/abc'],
    ['POST', '/v1/search'],
  ])('the preflight of %s %s allows that method', async (method, path) => {
    const preflight = await fetch(`${trawl.base}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.test', 'access-control-request-method': method, 'access-control-request-headers': 'authorization' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-methods')?.split(/,\s*/)).toContain(method)
  })

  test('an OPTIONS request without Origin is answered 204, not a text/plain 400', async () => {
    const res = await fetch(`${trawl.base}/v1/search`, { method: 'OPTIONS' })
    expect(res.status).toBe(204)
    expect(res.headers.get('content-type')).toBeNull()
    expect(await res.text()).toBe('')
  })
})

describe('Content-Type: application/json with an empty body is no body', () => {
  test('a queued crawl is canceled', async () => {
    const created = await call('POST', '/v1/crawl', JSON.stringify({ url: `${upstream.url}/`, limit: 1 }))
    expect(created.status).toBe(202)
    const { id } = await created.json()
    const canceled = await call('DELETE', `/v1/crawl/${id}`)
    expect(canceled.status, await canceled.clone().text()).toBe(200)
    expect(await canceled.json()).toMatchObject({ id, status: 'canceled' })
  })

  test('a monitor is run now, then deleted', async () => {
    const created = await call('POST', '/v1/monitors', JSON.stringify({ q: 'coffee' }))
    expect(created.status).toBe(200)
    const { id } = await created.json()
    const run = await call('POST', `/v1/monitors/${id}/run`)
    expect(run.status, await run.clone().text()).toBe(202)
    const deleted = await call('DELETE', `/v1/monitors/${id}`)
    expect(deleted.status, await deleted.clone().text()).toBe(200)
    expect((await get(`/v1/monitors/${id}`)).status).toBe(404)
  })

  test('an operation that needs a body names what is missing', async () => {
    const res = await call('POST', '/v1/search')
    expect(await errorOf(res)).toMatchObject({ status: 400, code: 'invalid_request', message: 'q is required' })
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(await errorOf(await call('POST', '/v1/crawl'))).toMatchObject({ status: 400, message: 'url is required' })
  })

  test.each(['null', '42', '"coffee"'])('a JSON body of %s is not an object', async (body) => {
    expect(await errorOf(await call('POST', '/v1/search', body))).toMatchObject({ status: 400, code: 'invalid_request', message: 'body must be a JSON object' })
  })
})

describe('parameters in the query string of a POST or PATCH', () => {
  test.each([
    ['POST', '/v1/search?num=20', { q: 'coffee' }, 'num', 'POST'],
    ['POST', '/v1/webpage?bogus=1', { url: 'https://example.com/' }, 'bogus', 'POST'],
    ['POST', '/v1/news?q=coffee', { q: 'coffee' }, 'q', 'POST'],
    ['PATCH', '/v1/monitors/abc?active=false', {}, 'active', 'PATCH'],
  ])('%s %s is a 400 naming the parameter, and costs nothing', async (method, path, body, name, verb) => {
    const res = await call(method, path, JSON.stringify(body))
    expect(await errorOf(res)).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: `unknown parameter ${name} in the query string: ${verb} takes its parameters in the JSON body`,
    })
    if (method === 'POST') expect(res.headers.get('x-credits-used')).toBe('0')
  })

  test('api_key in the query string of a POST without an Authorization header stays a 401', async () => {
    const res = await fetch(`${trawl.base}/v1/search?api_key=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"q":"x"}' })
    expect(await errorOf(res)).toMatchObject({ status: 401, code: 'unauthorized' })
  })
})

describe('GET /v1/account takes no parameters', () => {
  test('an unknown one is a 400', async () => {
    expect(await errorOf(await get('/v1/account?foo=1'))).toMatchObject({ status: 400, code: 'invalid_request', message: 'unknown parameter foo' })
  })

  test('api_key is the credential, not a parameter', async () => {
    const res = await fetch(`${trawl.base}/v1/account?api_key=${key}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ plan: 'enterprise' })
  })
})

describe('an unknown parameter is reported before a missing required one', () => {
  test.each([
    ['GET', '/v1/search?query=coffee', undefined, 'unknown parameter query: use q'],
    ['POST', '/v1/search', { query: 'coffee' }, 'unknown parameter query: use q'],
    ['GET', '/v1/news?query=coffee', undefined, 'unknown parameter query: use q'],
    ['POST', '/v1/rank', { keyword: 'x', domain: 'a.com' }, 'unknown parameter keyword: use q'],
    ['POST', '/v1/map', { urls: ['https://example.com/'] }, 'unknown parameter urls: use url'],
    ['POST', '/v1/lens', { image_url: 'https://example.com/a.png' }, 'unknown parameter image_url: use url'],
  ])('%s %s %j', async (method, path, body, message) => {
    const res = method === 'GET' ? await get(path) : await call(method, path, JSON.stringify(body))
    expect(await errorOf(res)).toMatchObject({ status: 400, code: 'invalid_request', message })
  })
})

describe("SerpApi's Google Maps Reviews names on /v1/reviews", () => {
  const fid = '0x14a1a32f316b15a1:0x169c54b46dcc3a93'
  test.each([
    [{ fid, sort_by: 'newest' }, 'unknown parameter sort_by: use sort'],
    [{ data_id: fid }, 'unknown parameter data_id: use fid'],
    [{ fid, next_page_token: 'abc' }, 'unknown parameter next_page_token: use page_token'],
  ])('%j: %s', async (params, message) => {
    expect(await errorOf(await call('POST', '/v1/reviews', JSON.stringify(params)))).toMatchObject({ status: 400, message })
    expect(await errorOf(await get(`/v1/reviews?${new URLSearchParams(params)}`))).toMatchObject({ status: 400, message })
  })

  test('the hint is given only where the endpoint takes the replacement', async () => {
    expect(await errorOf(await get('/v1/search?q=coffee&sort_by=newest'))).toMatchObject({ status: 400, message: 'unknown parameter sort_by' })
  })

  test('a batch of reviews requests gets the same hint', async () => {
    const res = await call('POST', '/v1/batches', JSON.stringify({ endpoint: 'reviews', requests: [{ data_id: fid }] }))
    expect(res.status).toBe(202)
    const { batches } = await res.json()
    expect(batches[0].error.message).toBe('unknown parameter data_id: use fid')
  })
})

describe('null for an optional parameter means not set (clients that send every field of their type)', () => {
  test('a crawl with nulls gets the defaults; a required parameter as null is still refused', async () => {
    const body = { url: `${upstream.url}/`, limit: null, max_depth: null, query: null, include_paths: null, webhook_url: null }
    const created = await call('POST', '/v1/crawl', JSON.stringify(body))
    expect(created.status).toBe(202)
    const task = await (await get(`/v1/crawl/${(await created.json()).id}`)).json()
    expect(task.credits_reserved).toBe(25)
    expect(await errorOf(await call('POST', '/v1/crawl', JSON.stringify({ url: null })))).toMatchObject({ status: 400, code: 'invalid_request' })
  })

  test('where a parameter takes null, null keeps its meaning (PATCH webhook_url: null clears it)', async () => {
    const created = await call('POST', '/v1/monitors', JSON.stringify({ q: 'coffee', active: false, webhook_url: 'https://hooks.example.test/x' }))
    expect(created.status).toBe(200)
    const { id } = await created.json()
    const patched = await call('PATCH', `/v1/monitors/${id}`, JSON.stringify({ webhook_url: null }))
    expect(patched.status).toBe(200)
    expect((await patched.json()).webhook_url).toBeNull()
  })
})

describe('a parameter of the wrong type is named as such, not as missing', () => {
  test.each([
    ['/v1/map', { url: 5 }, 'url must be a string, not a number'],
    ['/v1/crawl', { url: ['https://example.com/'] }, 'url must be a string, not an array'],
    ['/v1/search', { q: true }, 'q must be a string'],
    ['/v1/search', {}, 'q is required'],
  ])('%s %j', async (path, body, message) => {
    expect(await errorOf(await call('POST', path, JSON.stringify(body)))).toMatchObject({ status: 400, message })
  })
})

describe('HEAD is GET without the body', () => {
  test('HEAD /v1/account and HEAD /v1/search answer as GET does, headers included', async () => {
    const account = await fetch(`${trawl.base}/v1/account`, { method: 'HEAD', headers: { authorization: `Bearer ${key}` } })
    expect(account.status).toBe(200)
    // (This suite's upstream is no result page: GET answers 503, and so does HEAD, parameters read.)
    const url = `${trawl.base}/v1/search?q=coffee&api_key=${key}`
    const [head, get] = [await fetch(url, { method: 'HEAD' }), await fetch(url)]
    expect(head.status).toBe(get.status)
    expect(head.headers.get('x-credits-used')).toBe(get.headers.get('x-credits-used'))
    expect(await head.text()).toBe('')
  })
})
