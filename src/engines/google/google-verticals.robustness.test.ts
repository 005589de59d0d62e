import { describe, expect, test } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import type { VerticalPage, VerticalRequest } from '../engine.types.ts'
import { parseGoogleAutocomplete } from './autocomplete/google-autocomplete.parse.ts'
import { parseGoogleImages } from './images/google-images.parse.ts'
import { parseGoogleLens } from './lens/google-lens.parse.ts'
import { parseGoogleMaps } from './maps/google-maps.parse.ts'
import { parseGooglePlaces } from './maps/google-places.parse.ts'
import { parseGoogleNews } from './news/google-news.parse.ts'
import { parseGooglePatents } from './patents/google-patents.parse.ts'
import { parseGoogleReviews } from './reviews/google-reviews.parse.ts'
import { parseGoogleScholar } from './scholar/google-scholar.parse.ts'
import { parseGoogleShopping } from './shopping/google-shopping.parse.ts'
import { parseGoogleVideos } from './videos/google-videos.parse.ts'

/**
 * Every vertical parser meets every other engine's saved page (Bing, DuckDuckGo, blocked pages,
 * other Google layouts…): an unknown layout must come back as a well-formed page with a valid
 * parse_quality, never as an exception. Pages over 400 KB are left out to keep the suite quick.
 */
const req = (endpoint: VerticalRequest['endpoint']): VerticalRequest => ({ endpoint, country: 'us', language: 'en', num: 10, page: 1 })
const PARSERS: [string, (body: string) => VerticalPage<unknown>][] = [
  ['news', (b) => parseGoogleNews(b, req('news'))],
  ['images', (b) => parseGoogleImages(b, req('images'))],
  ['videos', (b) => parseGoogleVideos(b, req('videos'))],
  ['maps', (b) => parseGoogleMaps(b)],
  ['places', (b) => parseGooglePlaces(b)],
  ['shopping', (b) => parseGoogleShopping(b)],
  ['scholar', (b) => parseGoogleScholar(b)],
  ['patents', (b) => parseGooglePatents(b)],
  ['autocomplete', (b) => parseGoogleAutocomplete(b)],
  ['lens', (b) => parseGoogleLens(b)],
  ['reviews', (b) => parseGoogleReviews(b)],
]

/** Every saved engine page (fixtures/serp), by path under fixtures/. */
const pages = listFixtures('serp', true)
  .filter((name) => /\.(html?|json|http|xml)$/.test(name))
  .map((name) => ({ path: `serp/${name}`, body: readFixture(`serp/${name}`).toString('utf8') }))
  .filter((page) => page.body.length < 400_000)

describe('vertical parsers on foreign pages', () => {
  test('the corpus is there', () => {
    expect(pages.length).toBeGreaterThan(60)
  })

  test.each(PARSERS)('%s never throws and always answers a well-formed page', (_name, parse) => {
    for (const { path, body } of pages) {
      const page = parse(body)
      expect(['ok', 'partial', 'empty'], path).toContain(page.parse_quality)
      expect(Array.isArray(page.results), path).toBe(true)
      if (page.results.length === 0) expect(page.parse_quality, path).not.toBe('ok')
      // A block, CAPTCHA or consent page is never read as results.
      if (/\/blocked\/|recaptcha/.test(path)) expect(page.results, path).toEqual([])
    }
  })
})
