import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import { ApiError } from '../../../errors.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { EngineFetch } from '../../provider.types.ts'
import { googleReviews } from './google-reviews.ts'
import { decodeReviewsPageToken } from './reviews-page-token.ts'

const SECRET = 'server-secret'
const FID = '0x14e732fd76f0d90d:0xe5415928d6702b47'
const TIPSY_FID = '0x14de1786bd2659b9:0xb7f6e65826fa9ddb'
const realEntry = JSON.parse(fixture('serp/google/maps-reviews/gosom-review-no-translation.json').toString('utf8'))[0]
const recaptcha = fixture('serp/google/web-desktop/zlurad-recaptcha.html').toString('utf8')
const tipsyPage = fixture('serp/google/maps/gosom-place-page-tipsy-sticks.html').toString('utf8')
const constructed = (name: string) => readFileSync(new URL(`../../../../test/fixtures/google/reviews/${name}`, import.meta.url), 'utf8')

/** Review k of a place: the real entry under another id and author. */
function entry(k: number): unknown {
  const e = structuredClone(realEntry)
  e[0][0] = `review-${k}`
  e[0][1][4][5][0] = `Reviewer ${k}`
  return e
}

interface Call {
  url: string
  size?: number
  cursor?: string
  sort?: string
}

/**
 * A fake Google: `total` reviews per place, paged by listugcposts with cursors "at<offset>", and
 * Maps pages for place lookups. Every call's detectBlock must refuse a CAPTCHA page.
 */
function fakeGoogle(total: number, pages: Record<string, string> = {}) {
  const calls: Call[] = []
  const fetch: EngineFetch = async (url, _headers, detectBlock) => {
    expect(detectBlock?.({ status: 200, url, body: recaptcha })).not.toBeNull()
    const u = new URL(url)
    if (u.pathname === '/maps/rpc/listugcposts') {
      const pb = u.searchParams.get('pb') ?? ''
      const size = Number(/!2m2!1i(\d+)/.exec(pb)?.[1])
      const cursor = /!2s([^!]*)/.exec(pb)?.[1] ?? ''
      calls.push({ url, size, cursor, sort: /!13m1!1e(\d)$/.exec(pb)?.[1] })
      const from = cursor ? Number(cursor.replace('at', '')) : 0
      const to = Math.min(total, from + size)
      const items = Array.from({ length: to - from }, (_, i) => entry(from + i + 1))
      return { status: 200, url, body: `)]}'\n${JSON.stringify([null, to < total ? `at${to}` : null, items])}` }
    }
    calls.push({ url })
    const page = Object.entries(pages).find(([prefix]) => url.startsWith(prefix))
    if (!page) throw new Error(`unexpected fetch ${url}`)
    return { status: 200, url, body: page[1] }
  }
  return { fetch, calls }
}

const req = (over: Partial<VerticalRequest>): VerticalRequest => ({
  endpoint: 'reviews',
  sort: 'most_relevant',
  num: 10,
  country: 'us',
  language: 'en',
  ...over,
})

async function apiErrorOf(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p
  } catch (e) {
    if (e instanceof ApiError) return e
    throw e
  }
  throw new Error('expected an ApiError')
}

describe('googleReviews', () => {
  const reviews = googleReviews(SECRET)

  it('lists the first page for a fid in one call and hands out a token for the next', async () => {
    const google = fakeGoogle(45)
    const page1 = await reviews.run(req({ fid: FID }), google.fetch)
    expect(google.calls).toHaveLength(1)
    expect(google.calls[0]).toMatchObject({ size: 10, cursor: '', sort: '1' })
    expect(google.calls[0]?.url).toContain('!1s0x14e732fd76f0d90d%3A0xe5415928d6702b47')
    expect(page1.parse_quality).toBe('ok')
    expect(page1.results.map((r) => r.user?.name)).toEqual(Array.from({ length: 10 }, (_, i) => `Reviewer ${i + 1}`))
    expect(page1.results[0]).toMatchObject({ rating: 5, date: '7 years ago', likes: 5 })
    const token = page1.extras?.next_page_token as string
    expect(decodeReviewsPageToken(token, `fid:${FID}`, 'most_relevant', SECRET)).toEqual({
      place: `fid:${FID}`,
      sort: 'most_relevant',
      offset: 10,
      cursor: 'at10',
      fid: FID,
    })

    const page2 = await reviews.run(req({ fid: FID, page_token: token }), google.fetch)
    expect(google.calls[1]).toMatchObject({ size: 10, cursor: 'at10' })
    expect(page2.results[0]?.user?.name).toBe('Reviewer 11')
  })

  it('fetches as many upstream pages of 20 as num needs', async () => {
    const google = fakeGoogle(200)
    const page = await reviews.run(req({ fid: FID, num: 50, sort: 'newest' }), google.fetch)
    expect(google.calls.map((c) => [c.size, c.cursor, c.sort])).toEqual([
      [20, '', '2'],
      [20, 'at20', '2'],
      [10, 'at40', '2'],
    ])
    expect(page.results).toHaveLength(50)
    expect(page.results[49]?.user?.name).toBe('Reviewer 50')
    expect(decodeReviewsPageToken(page.extras?.next_page_token as string, `fid:${FID}`, 'newest', SECRET).offset).toBe(50)
  })

  it('stops at review 100 of the sort order: the page is trimmed and carries no token', async () => {
    const google = fakeGoogle(500)
    let token: string | undefined
    const names: string[] = []
    for (const expected of [40, 40, 20]) {
      const page = await reviews.run(req({ fid: FID, num: 40, page_token: token }), google.fetch)
      expect(page.results).toHaveLength(expected)
      names.push(...page.results.map((r) => r.user!.name))
      token = page.extras?.next_page_token as string | undefined
    }
    expect(token).toBeUndefined()
    expect(names).toHaveLength(100)
    expect(names[99]).toBe('Reviewer 100')
    expect(google.calls.map((c) => c.size)).toEqual([20, 20, 20, 20, 20])
  })

  it('has no token on the last page', async () => {
    const google = fakeGoogle(15)
    const first = await reviews.run(req({ fid: FID }), google.fetch)
    const last = await reviews.run(req({ fid: FID, page_token: first.extras?.next_page_token as string }), google.fetch)
    expect(last.results.map((r) => r.user?.name)).toEqual(['Reviewer 11', 'Reviewer 12', 'Reviewer 13', 'Reviewer 14', 'Reviewer 15'])
    expect(last.extras).toBeUndefined()
    const none = await reviews.run(req({ fid: FID }), fakeGoogle(0).fetch)
    expect(none).toEqual({ results: [], parse_quality: 'empty' })
  })

  it('resolves a place_id through the Maps page once, then pages by the fid in the token', async () => {
    const google = fakeGoogle(30, { 'https://www.google.com/maps/place/?q=place_id:': tipsyPage })
    const placeId = 'ChIJuVkmvYYX3hQR2536Jljm9rc'
    const page1 = await reviews.run(req({ place_id: placeId, language: 'el', country: 'cy' }), google.fetch)
    expect(google.calls[0]?.url).toBe(`https://www.google.com/maps/place/?q=place_id:${placeId}&hl=el&gl=cy`)
    expect(google.calls[1]?.url).toContain(`!1s${encodeURIComponent(TIPSY_FID)}`)
    expect(google.calls[1]?.url).toContain('hl=el&gl=cy')
    const token = page1.extras?.next_page_token as string
    expect(decodeReviewsPageToken(token, `place_id:${placeId}`, 'most_relevant', SECRET).fid).toBe(TIPSY_FID)
    await reviews.run(req({ place_id: placeId, page_token: token }), google.fetch)
    expect(google.calls.filter((c) => c.url.includes('/maps/place/'))).toHaveLength(1)
  })

  it('resolves a cid; a Maps page without that place is an empty answer', async () => {
    const found = fakeGoogle(5, { 'https://www.google.com/maps?cid=13256035819497102811': tipsyPage })
    const page = await reviews.run(req({ cid: '13256035819497102811' }), found.fetch)
    expect(page.results).toHaveLength(5)
    expect(found.calls[1]?.url).toContain(encodeURIComponent(TIPSY_FID))

    const empty = fakeGoogle(5, { 'https://www.google.com/maps?cid=': '<script>window.APP_INITIALIZATION_STATE=[[],null,null,[]];</script>' })
    expect(await reviews.run(req({ cid: '42' }), empty.fetch)).toEqual({ results: [], parse_quality: 'empty' })
    expect(empty.calls).toHaveLength(1)
    const unknown = fakeGoogle(5, { 'https://www.google.com/maps?cid=': '<html>something else</html>' })
    expect(await apiErrorOf(reviews.run(req({ cid: '42' }), unknown.fetch))).toMatchObject({ code: 'upstream_error' })
  })

  it('refuses a token for another place, another sort, or a forged one before fetching', async () => {
    const google = fakeGoogle(50)
    const token = (await reviews.run(req({ fid: FID, sort: 'newest' }), google.fetch)).extras?.next_page_token as string
    const before = google.calls.length
    const wrongSort = await apiErrorOf(reviews.run(req({ fid: FID, sort: 'most_relevant', page_token: token }), google.fetch))
    expect(wrongSort).toMatchObject({ code: 'invalid_request', message: 'page_token was issued for sort=newest, not sort=most_relevant' })
    const wrongPlace = await apiErrorOf(reviews.run(req({ cid: '1', sort: 'newest', page_token: token }), google.fetch))
    expect(wrongPlace.message).toMatch(/another place/)
    const otherServer = await apiErrorOf(googleReviews('other-secret').run(req({ fid: FID, sort: 'newest', page_token: token }), google.fetch))
    expect(otherServer.message).toMatch(/altered or issued by another server/)
    expect(google.calls.length).toBe(before)
    expect(await apiErrorOf(reviews.run(req({}), google.fetch))).toMatchObject({ message: 'one of place_id, cid, fid is required' })
  })

  it('pages the constructed listugcposts answers end to end', async () => {
    const urls: string[] = []
    const fetch: EngineFetch = async (url) => {
      urls.push(url)
      const name = url.includes('!2sCAESBkVnSUlDZw%3D%3D') ? 'listugcposts-last-page.constructed.txt' : 'listugcposts-first-page.constructed.txt'
      return { status: 200, url, body: constructed(name) }
    }
    const first = await reviews.run(req({ fid: FID, num: 3 }), fetch)
    expect(first.results.map((r) => r.user?.name)).toEqual(['E. Ö.', 'Olena Kuzhel', 'Marek Nowak'])
    expect(first.results[0]?.response?.snippet).toMatch(/^Es tut uns sehr leid/)
    const last = await reviews.run(req({ fid: FID, num: 3, page_token: first.extras?.next_page_token as string }), fetch)
    expect(last.results).toEqual([expect.objectContaining({ rating: 4, date: '2 years ago', user: expect.objectContaining({ name: 'Lena', reviews: 118 }) })])
    expect(last.extras).toBeUndefined()
    expect(urls).toHaveLength(2)
  })

  it('needs a secret', () => {
    expect(() => googleReviews('')).toThrow(/secret/)
  })
})
