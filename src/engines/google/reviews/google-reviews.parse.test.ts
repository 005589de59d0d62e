import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import { parseGoogleReviews, reviewOf } from './google-reviews.parse.ts'

const realEntry = (name: string): unknown => (JSON.parse(fixture(`serp/google/maps-reviews/${name}`).toString('utf8')) as unknown[])[0]
const constructed = (name: string) => readFileSync(new URL(`../../../../test/fixtures/google/reviews/${name}`, import.meta.url), 'utf8')

describe('reviewOf: the real listugcposts entries', () => {
  it('reads the German review with its owner reply, keeping the original text', () => {
    const review = reviewOf(realEntry('gosom-review-with-owner-reply.json'))!
    expect(review).toMatchObject({
      rating: 1,
      date: '2 months ago',
      iso_date: '2026-02-27T10:02:02.193Z',
      likes: 0,
      user: {
        name: 'E. Ö.',
        thumbnail: 'https://lh3.googleusercontent.com/a/ACg8ocIiIJCE1nOhvrUjWGAU5TEEFEnwFacfUv-iNG1fEglkcSXazA=s120-c-rp-mo-br100',
        reviews: 2,
      },
      response: { date: '2 months ago' },
    })
    expect(review.snippet?.startsWith('Ich bin sehr enttäuscht vom Verhalten der Rezeption in dieser Praxis.\nIch hatte seit über 10 Tagen')).toBe(true)
    expect(review.snippet?.endsWith('Ich habe mich nicht ernst genommen und sehr allein gelassen gefühlt.')).toBe(true)
    expect(review.response?.snippet.startsWith('Es tut uns sehr leid, dass Sie sich in einer ohnehin belastenden')).toBe(true)
    expect(review.response?.snippet.endsWith('Ihr Praxisteam')).toBe(true)
  })

  it('reads the English review of a Local Guide with 5 likes and no reply', () => {
    expect(reviewOf(realEntry('gosom-review-no-translation.json'))).toEqual({
      rating: 5,
      date: '7 years ago',
      iso_date: '2019-04-17T09:54:51.197Z',
      snippet:
        'I had been recently in gynecologist Tatjana Mahnhardt and found that she is super nice and highly professional! Her German is perfect, well understandable for foreighners and luckily for me she is also russian-speaking doctor!\nThe only think I did not like that is not nice behavior of ladies on the receiption.',
      likes: 5,
      user: {
        name: 'Olena Kuzhel',
        thumbnail: 'https://lh3.googleusercontent.com/a-/ALV-UjWPJiLKwP8bGMPunqgUG_49I2iEfBGopbymvRAD4Q8Rg27ARRmW=s120-c-rp-mo-ba3-br100',
        reviews: 46,
      },
    })
  })

  it('skips partner reviews on another scale and rejects entries that are not reviews', () => {
    const partner = structuredClone(realEntry('gosom-review-no-translation.json')) as any[]
    partner[0][1][13] = ['Tripadvisor', null, null, null, 10]
    partner[0][2][0] = [9]
    expect(reviewOf(partner)).toBeNull()
    expect(reviewOf(['x', null])).toBeUndefined()
    expect(reviewOf(null)).toBeUndefined()
  })
})

describe('parseGoogleReviews: constructed listugcposts pages', () => {
  it('reads a page with a continuation token', () => {
    const page = parseGoogleReviews(constructed('listugcposts-first-page.constructed.txt'))
    expect(page.parse_quality).toBe('ok')
    expect(page.cursor).toBe('CAESBkVnSUlDZw==')
    expect(page.results.map((r) => [r.user?.name, r.rating, r.date])).toEqual([
      ['E. Ö.', 1, '2 months ago'],
      ['Olena Kuzhel', 5, '7 years ago'],
      ['Marek Nowak', 3, '4 months ago'],
    ])
    expect(page.results[2]).toMatchObject({ likes: 12, iso_date: '2026-01-01T00:00:00.000Z', snippet: 'Friendly doctor, long wait at the reception.' })
  })

  it('reads the last page (no token) and a star-only review', () => {
    const page = parseGoogleReviews(constructed('listugcposts-last-page.constructed.txt'))
    expect(page.cursor).toBeUndefined()
    expect(page.results).toEqual([
      {
        rating: 4,
        date: '2 years ago',
        iso_date: '2024-01-01T00:00:00.000Z',
        user: {
          name: 'Lena',
          thumbnail: 'https://lh3.googleusercontent.com/a-/ALV-UjWPJiLKwP8bGMPunqgUG_49I2iEfBGopbymvRAD4Q8Rg27ARRmW=s120-c-rp-mo-ba3-br100',
          reviews: 118,
        },
      },
    ])
  })

  it('says partial when some entries are unreadable, empty for bodies that are not the RPC answer', () => {
    const body = constructed('listugcposts-first-page.constructed.txt').replace('[null,"CAESBkVnSUlDZw==",[', '[null,"CAESBkVnSUlDZw==",[["junk"],')
    const page = parseGoogleReviews(body)
    expect(page.parse_quality).toBe('partial')
    expect(page.results).toHaveLength(3)
    const recaptcha = fixture('serp/google/web-desktop/zlurad-recaptcha.html').toString('utf8')
    for (const bad of [recaptcha, '', ")]}'\n[null,null]", ")]}'\n[null,null,[]]", ")]}'\n[null,"]) {
      expect(parseGoogleReviews(bad)).toEqual({ results: [], parse_quality: 'empty' })
    }
  })
})

describe('parseGoogleReviews: the saved single-entry fragments', () => {
  it('reads a bare entry list as partial', () => {
    const page = parseGoogleReviews(fixture('serp/google/maps-reviews/gosom-review-no-translation.json').toString('utf8'))
    expect(page.parse_quality).toBe('partial')
    expect(page.results.map((r) => r.user?.name)).toEqual(['Olena Kuzhel'])
    expect(page.cursor).toBeUndefined()
  })
})
