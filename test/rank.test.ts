import { describe, expect, test } from 'vitest'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { engineSuite } from './support/engine-suite.ts'
import { fixture } from './support/fake-upstream.ts'
import { googleFirstPageOnly } from './support/google-pages.ts'

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html') // 95 organic results

// Google answers 10 results a page: the check of 100 asks 10 pages; the first holds all 95 here.
const suite = engineSuite(googleFirstPageOnly(COFFEE))

const rank = (body: unknown) =>
  fetch(`${suite.trawl.base}/v1/rank`, {
    method: 'POST',
    headers: { authorization: `Bearer ${suite.account.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('POST /v1/rank', () => {
  test('finds the best organic position of a domain in the top 100, with every match, for 7 credits', async () => {
    const res = await rank({ q: 'coffee', domain: 'starbucks.com' })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-used')).toBe('7')
    const body = await res.json()
    expect(body).toMatchObject({
      request: { endpoint: 'rank', engine: 'google', q: 'coffee', domain: 'starbucks.com', country: 'us', language: 'en', num: 100, device: 'desktop' },
      domain: 'starbucks.com',
      position: 13,
      checked: 95,
    })
    expect(body.matches.map((m: { position: number }) => m.position)).toEqual([13, 14, 15])
    expect(body.matches[0]).toEqual({ position: 13, title: expect.any(String), link: expect.stringMatching(/^https:\/\/(www\.)?starbucks\.com/) })
    expect(body.meta).toMatchObject({ credits_used: 7, engine: 'google', parse_quality: 'ok', cached: false })
    const pages = suite.upstream.seen.map((s) => new URL(s.url, 'https://www.google.com').searchParams)
    expect(pages.map((p) => Number(p.get('start') ?? 0)).sort((a, b) => a - b)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90])
    for (const p of pages) expect(p.has('num')).toBe(false)
  })

  test('subdomains match, and a URL or www. form of the domain is normalised', async () => {
    const body = await (await rank({ q: 'coffee', domain: 'https://www.Harvard.edu/' })).json()
    expect(body.domain).toBe('harvard.edu')
    expect(body.position).toBe(7)
    expect(body.matches.map((m: { link: string }) => new URL(m.link).hostname)).toEqual(['www.hsph.harvard.edu', 'www.health.harvard.edu'])
  })

  test('a domain outside the checked results has position null and still costs the depth searched', async () => {
    const res = await rank({ q: 'coffee', domain: 'starbucks.com', num: 10 })
    const body = await res.json()
    expect(body).toMatchObject({ position: null, matches: [], checked: 10 })
    expect(res.headers.get('x-credits-used')).toBe('1')
  })

  test('bad input is a 400 naming the parameter and costs nothing', async () => {
    for (const [input, message] of [
      [{ q: 'coffee' }, /domain is required/],
      [{ q: 'coffee', domain: 'not a domain' }, /domain must be a domain/],
      [{ q: 'coffee', domain: 'example.com', num: 15 }, /num must be one of 10, 20, 30, 50, 100/],
      [{ q: 'coffee', domain: 'example.com', page: 2 }, /unknown parameter page/],
    ] as const) {
      const res = await rank(input)
      const error = await errorOf(res)
      expect(error).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(message) })
      expect(res.headers.get('x-credits-used')).toBe('0')
    }
    expect(suite.upstream.seen).toHaveLength(0)
  })

  test('max_age replays a cached check at half price; the books stay balanced', async () => {
    await rank({ q: 'espresso', domain: 'peets.com', num: 20 })
    const res = await rank({ q: 'espresso', domain: 'peets.com', num: 20, max_age: 600 })
    expect(res.headers.get('x-cache')).toBe('HIT')
    expect(res.headers.get('x-credits-used')).toBe('1')
    expect((await res.json()).position).toBe(6)
    await expectBooksBalanced(suite.trawl, suite.account.id)
  })
})
