import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SEARXNG_LIMITS } from '../src/engines/searxng/searxng.parse.ts'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { type FakeUpstream, fakeUpstream } from './support/fake-upstream.ts'
import { HAN_RUN, hostileRoutes, hostileSearx, LONG_SNIPPET, SEARX_HOST, WORD } from './support/hostile-pages.ts'
import { pathServer } from './support/path-server.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Pages and engine answers built to stall the server, through the HTTP API (docs/operations.md,
 * "Hostile pages and engine answers"). Each read is made while /livez is asked again and again; the
 * server must answer every one of those, and the read must end.
 *
 * 1. Token counting: a page of one 1,000,000-letter word, 120,000 Chinese characters without a
 *    break, a SearXNG answer whose title is 112,000 characters long. Before the fix the first two
 *    held the server for minutes (these tests ran out of time) and the title came back whole.
 * 2. Stacked Content-Encoding: gzip listed 2,000 times, read alone and as /v1/context's results.
 */

let site: Awaited<ReturnType<typeof pathServer>>
let base = ''
let engine: FakeUpstream
let trawl: Trawl

beforeAll(async () => {
  site = await pathServer(hostileRoutes)
  base = site.base
  engine = await fakeUpstream(hostileSearx(() => base))
  trawl = await startTrawl({
    TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
    TRAWL_SEARXNG_URL: `http://${SEARX_HOST}`,
    TRAWL_UPSTREAM_HOSTS: `*=${engine.url}`,
    TRAWL_UPSTREAM_TIMEOUT_MS: '5000',
    TRAWL_BROWSER: 'off',
  })
})
afterAll(async () => {
  await trawl?.close()
  await engine?.close()
  await site?.close()
})

const newAccount = () => trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })
const post = (key: string, path: string, payload: unknown) =>
  fetch(`${trawl.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  })

/**
 * Runs `work` while asking /livez again and again, one request after the other. Returns what the
 * work returned, the statuses /livez answered, and how many of them came back before the work
 * was done: a server whose event loop the work held would have answered none in that time.
 */
/** The slowest /livez answer seen during each hostile read: reported (docs/operations.md), not asserted. */
const slowestLivezMs = new Map<string, number>()
afterAll(() => {
  for (const [name, ms] of slowestLivezMs) console.info(`slowest /livez: ${ms.toFixed(1)} ms during ${name}`)
})

async function whileLivez<T>(work: () => Promise<T>): Promise<{ value: T; statuses: number[]; during: number }> {
  let done = false
  const statuses: number[] = []
  const poller = (async () => {
    while (!done) {
      const started = performance.now()
      const res = await fetch(`${trawl.base}/livez`)
      await res.arrayBuffer()
      statuses.push(res.status)
      const name = expect.getState().currentTestName ?? ''
      slowestLivezMs.set(name, Math.max(slowestLivezMs.get(name) ?? 0, performance.now() - started))
    }
  })()
  try {
    const value = await work()
    const during = statuses.length
    return { value, statuses, during }
  } finally {
    done = true
    await poller
  }
}

const expectLive = (statuses: number[], during: number) => {
  expect(during).toBeGreaterThan(0)
  expect(statuses.every((s) => s === 200)).toBe(true)
}

describe('1. token counting on text built to be slow', () => {
  test('a page of one 1,000,000-letter word: read, then cut to max_tokens from the cache, /livez answering meanwhile', async () => {
    const { id, key } = await newAccount()
    const whole = await whileLivez(async () => {
      const res = await post(key, '/v1/webpage', { url: `${base}/long-word` })
      return { res, body: await res.json() }
    })
    expectLive(whole.statuses, whole.during)
    expect(whole.value.res.status).toBe(200)
    expect(whole.value.body.markdown).toContain(WORD)
    // o200k gives random letters about two characters a token.
    expect(Number(whole.value.res.headers.get('x-tokens-estimate'))).toBeGreaterThan(WORD.length / 4)
    expect(whole.value.res.headers.get('x-credits-used')).toBe('1')

    // From the cache, only the cut is left to do: 100,000 tokens of the word, with turns for /livez.
    const cut = await whileLivez(async () => {
      const res = await post(key, '/v1/webpage', { url: `${base}/long-word`, max_age: 3600, max_tokens: 100_000 })
      return { res, body: await res.json() }
    })
    expectLive(cut.statuses, cut.during)
    expect(cut.value.res.status).toBe(200)
    expect(cut.value.body.cached).toBe(true)
    expect(WORD.startsWith(cut.value.body.markdown.split('\n').at(-1))).toBe(true)
    expect(cut.value.body.markdown.length).toBeLessThan(WORD.length / 2)
    expect(Number(cut.value.res.headers.get('x-tokens-estimate'))).toBeLessThanOrEqual(100_000)
    expect(await expectBooksBalanced(trawl, id)).toBe(98.5)
  })

  test('120,000 Chinese characters with no punctuation, on /v1/webpage and /v1/extract at once', async () => {
    const { key } = await newAccount()
    const { value, statuses, during } = await whileLivez(() =>
      Promise.all([post(key, '/v1/webpage', { url: `${base}/han-run` }), post(key, '/v1/extract', { urls: [`${base}/han-run`] })]),
    )
    expectLive(statuses, during)
    const [webpage, extract] = value
    expect(webpage.status).toBe(200)
    expect((await webpage.json()).markdown).toContain(HAN_RUN.slice(0, 1000))
    expect(Number(webpage.headers.get('x-tokens-estimate'))).toBeGreaterThan(HAN_RUN.length / 2)
    expect(extract.status).toBe(200)
    expect((await extract.json()).failed).toEqual([])
  })

  test('a page quoting special tokens (<|endoftext|>) is read: they are counted as text', async () => {
    const { key } = await newAccount()
    const res = await post(key, '/v1/webpage', { url: `${base}/special-tokens`, max_tokens: 100 })
    expect(res.status).toBe(200)
    expect((await res.json()).markdown).toContain('<|endoftext|>')
    expect(Number(res.headers.get('x-tokens-estimate'))).toBeGreaterThan(0)
  })

  test('a SearXNG answer with a 112,000-character title: every field is cut where the answer is read', async () => {
    const { key } = await newAccount()
    const { value, statuses, during } = await whileLivez(async () => {
      const res = await fetch(`${trawl.base}/v1/search?q=long&engine=searxng`, { headers: { authorization: `Bearer ${key}` } })
      return { res, body: await res.json() }
    })
    expectLive(statuses, during)
    expect(value.res.status).toBe(200)
    const [long, ordinary, more] = value.body.results
    expect(long.link).toBe('https://long.example/title')
    expect(long.title.length).toBeLessThanOrEqual(SEARXNG_LIMITS.title + 1)
    expect(long.title).toMatch(/^A title that goes on and on .*…$/)
    expect(long.snippet).toBe(`${LONG_SNIPPET.slice(0, SEARXNG_LIMITS.text)}…`)
    // The 10,000-character link is not a link any engine gives: the result is dropped, not cut.
    expect(ordinary).toMatchObject({ position: 2, link: 'https://short.example/', title: 'An ordinary result' })
    expect(more).toBeUndefined()
    // Beside the results, every engine's lists are bounded (provider.routes.ts): 20 related searches, not 5,000.
    expect(value.body.related_searches).toHaveLength(20)
    expect(Number(value.res.headers.get('x-tokens-estimate'))).toBeGreaterThan(0)
  })
})

describe('2. stacked Content-Encoding', () => {
  test('gzip listed 2,000 times is refused before a byte is decoded: 503 naming the reason, not billed', async () => {
    const { id, key } = await newAccount()
    const { value: res, statuses, during } = await whileLivez(() => post(key, '/v1/webpage', { url: `${base}/stacked` }))
    expectLive(statuses, during)
    expect(await errorOf(res)).toMatchObject({
      status: 503,
      code: 'upstream_error',
      message: 'page is sent with 2000 content codings (gzip, gzip, gzip, …); at most 2 are decoded',
    })
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(res.headers.get('x-credits-used')).toBe('0')
    expect(await expectBooksBalanced(trawl, id)).toBe(100)
  })

  test('/v1/context over three such results answers, each page failed with the reason and free', async () => {
    const { id, key } = await newAccount()
    const { value, statuses, during } = await whileLivez(async () => {
      const res = await post(key, '/v1/context', { q: 'stacked pages', engine: 'searxng', num: 3 })
      return { res, body: await res.json() }
    })
    expectLive(statuses, during)
    expect(value.res.status).toBe(200)
    expect(value.body.sources).toHaveLength(3)
    for (const source of value.body.sources) {
      expect(source).toMatchObject({ read: false, error: { code: 'upstream_error', message: expect.stringContaining('2000 content codings') } })
    }
    expect(value.body.meta.pages_read).toBe(0)
    expect(await expectBooksBalanced(trawl, id)).toBe(100 - value.body.meta.credits_used)
  })

  test('two codings (br over gzip) are still read; a gzip bomb stops at the 10 MB cap', async () => {
    const { id, key } = await newAccount()
    const two = await post(key, '/v1/webpage', { url: `${base}/two-codings` })
    expect(two.status).toBe(200)
    expect((await two.json()).markdown).toContain('A paragraph of an ordinary article')
    const bomb = await post(key, '/v1/webpage', { url: `${base}/bomb` })
    expect(await errorOf(bomb)).toMatchObject({ status: 503, code: 'upstream_error', message: 'page is larger than 10 MB' })
    expect(await expectBooksBalanced(trawl, id)).toBe(99)
  })
})

describe('5. deeply nested pages', () => {
  test('a page nested 100,000 deep is read with its text (elements past 512 deep left out), /livez answering meanwhile', async () => {
    const { id, key } = await newAccount()
    const { value, statuses, during } = await whileLivez(async () => {
      const reads = []
      for (let i = 0; i < 3; i++) reads.push(await post(key, '/v1/webpage', { url: `${base}/deep?n=${i}` }))
      return Promise.all(reads.map(async (r) => ({ status: r.status, body: await r.json() })))
    })
    expectLive(statuses, during)
    for (const read of value) {
      expect(read.status).toBe(200)
      expect(read.body.markdown).toContain('The text at the bottom of a very deep page')
    }
    expect(await expectBooksBalanced(trawl, id)).toBe(97)
  })
})
