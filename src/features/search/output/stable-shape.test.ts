import { describe, expect, test } from 'vitest'
import { imagesBody, reviewsBody, searchBody } from './sample-bodies.fixture.ts'
import { completeBody } from './stable-shape.ts'

const meta = { request_id: 'req_1', credits_used: 1, cached: false, engine: 'google', route: [], latency_ms: 5, parse_quality: 'ok', resolved_urls: true }

describe('completeBody', () => {
  test('web search: missing item fields become null, lists [], missing envelope keys their empty value', () => {
    const body = { request: { endpoint: 'search' }, results: [{ position: 1, title: 'T', link: 'https://a.example/', domain: 'a.example' }], meta }
    expect(completeBody('search', body)).toEqual({
      request: { endpoint: 'search' },
      results: [{ position: 1, title: 'T', link: 'https://a.example/', domain: 'a.example', displayed_link: null, snippet: null, date: null, sitelinks: [] }],
      people_also_ask: [],
      related_searches: [],
      knowledge_graph: null,
      answer_box: null,
      top_stories: null,
      places: null,
      meta,
    })
  })

  test('ads: absent unless asked for, then [] when the page had none', () => {
    const body = { request: { ads: false }, results: [], meta }
    expect(completeBody('search', body)).not.toHaveProperty('ads')
    expect(completeBody('search', { ...body, request: { ads: true } })).toHaveProperty('ads', [])
  })

  test('optional keys stay absent: include_content fields, meta.cached_at, next_page_token', () => {
    const out = completeBody('reviews', { request: {}, results: [{ rating: 4 }], meta })
    expect(out).not.toHaveProperty('next_page_token')
    expect(out.meta).not.toHaveProperty('cached_at')
    expect(out.results).toEqual([{ rating: 4, date: null, iso_date: null, snippet: null, likes: null, user: null, response: null }])
    const search = completeBody('search', { request: {}, results: [{ position: 1, title: 'T', link: 'l', domain: 'd' }], meta })
    expect(Object.keys((search.results as object[])[0]!)).not.toContain('content')
  })

  test('nested objects are completed too; present values, nulls included, are kept as they are', () => {
    const body = reviewsBody()
    ;(body.results[1] as { user: object }).user = { name: 'Sam' }
    const out = completeBody('reviews', body)
    expect((out.results as { user: unknown }[])[1]!.user).toEqual({ name: 'Sam', thumbnail: null, reviews: null })
    expect(completeBody('reviews', reviewsBody())).toEqual(reviewsBody())
  })

  test('keys in schema order; a key the schema does not know rides along after them', () => {
    const body = imagesBody()
    ;(body.results[0] as Record<string, unknown>).extra = 1
    const first = (completeBody('images', body).results as object[])[0]!
    expect(Object.keys(first)).toEqual(['position', 'title', 'image_url', 'image_width', 'image_height', 'thumbnail_url', 'source', 'domain', 'link', 'extra'])
  })

  test('does not mutate the body it completes (bodies are cached and replayed)', () => {
    const body = searchBody()
    const copy = structuredClone(body)
    completeBody('search', body)
    expect(body).toEqual(copy)
  })
})
