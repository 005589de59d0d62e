import { describe, expect, test } from 'vitest'
import { ApiError } from '../../../errors.ts'
import { parseFields, projectFields } from './fields.projection.ts'
import { topLevelKeys } from './output.types.ts'
import { reviewsBody, searchBody } from './sample-bodies.fixture.ts'

const SEARCH_KEYS = topLevelKeys('search')

function fieldsErrorOf(spec: string, allowed: readonly string[] = SEARCH_KEYS): ApiError {
  try {
    parseFields(spec, allowed)
  } catch (err) {
    if (err instanceof ApiError) return err
    throw err
  }
  throw new Error(`parseFields accepted ${JSON.stringify(spec)}`)
}

describe('parseFields', () => {
  test('splits comma-separated dotted paths into segments', () => {
    expect(parseFields('results.title,results.link,knowledge_graph,answer_box.answer', SEARCH_KEYS)).toEqual([
      ['results', 'title'],
      ['results', 'link'],
      ['knowledge_graph'],
      ['answer_box', 'answer'],
    ])
  })

  test('tolerates spaces around commas and drops duplicates', () => {
    expect(parseFields(' results.title , results.title,meta ', SEARCH_KEYS)).toEqual([['results', 'title'], ['meta']])
  })

  test.each([
    ['', 'fields: must list at least one path, e.g. results.title,results.link'],
    ['  ', 'fields: must list at least one path, e.g. results.title,results.link'],
    ['results.title,,results.link', 'fields: path 2 is empty (check for a doubled or trailing comma)'],
    ['results.title,', 'fields: path 2 is empty (check for a doubled or trailing comma)'],
    ['results..title', 'fields: "results..title" has an empty segment'],
    ['.results', 'fields: ".results" has an empty segment'],
    ['results.', 'fields: "results." has an empty segment'],
    ['results.title-text', 'fields: "results.title-text" may contain only letters, digits, underscores and dots'],
    ['results[0].title', 'fields: "results[0].title" may contain only letters, digits, underscores and dots'],
    ['results.ti tle', 'fields: "results.ti tle" may contain only letters, digits, underscores and dots'],
    [
      'organic_results.title',
      'fields: unknown key "organic_results"; allowed: request, results, people_also_ask, related_searches, ' +
        'knowledge_graph, answer_box, top_stories, places, ads, meta',
    ],
  ])('rejects %j', (spec, message) => {
    const err = fieldsErrorOf(spec)
    expect(err.code).toBe('invalid_request')
    expect(err.status).toBe(400)
    expect(err.message).toBe(message)
  })

  test('checks top-level keys against the list the caller passes', () => {
    expect(parseFields('next_page_token,results.user.name', topLevelKeys('reviews'))).toHaveLength(2)
    expect(fieldsErrorOf('knowledge_graph', topLevelKeys('news')).message).toBe('fields: unknown key "knowledge_graph"; allowed: request, results, meta')
  })

  test('allows 50 paths and rejects 51', () => {
    const paths = (n: number) => Array.from({ length: n }, (_, i) => `results.f${i}`).join(',')
    expect(parseFields(paths(50), SEARCH_KEYS)).toHaveLength(50)
    expect(fieldsErrorOf(paths(51)).message).toBe('fields: at most 50 paths are allowed, got 51')
  })

  test('keeps an echoed bad value short and free of control characters', () => {
    const message = fieldsErrorOf(`results.${'x'.repeat(100)}\u0007`).message
    expect(message).toBe(`fields: "results.${'x'.repeat(52)}…" may contain only letters, digits, underscores and dots`)
  })
})

describe('projectFields', () => {
  test('maps array paths over every result and keeps request and meta whole', () => {
    const body = searchBody()
    const out = projectFields(body, parseFields('results.title,results.link', SEARCH_KEYS))
    expect(Object.keys(out)).toEqual(Object.keys(body))
    expect(out.request).toEqual(body.request)
    expect(out.meta).toEqual(body.meta)
    expect(out.results).toEqual([
      {
        title: 'The 6 Best Espresso Machines of 2024 | Tested & Reviewed',
        link: 'https://www.seriouseats.com/best-espresso-machines-7100546',
      },
      { title: 'Espresso machine - Wikipedia', link: 'https://en.wikipedia.org/wiki/Espresso_machine_(coffee)' },
      { title: '# 1 Rated <Espresso> Deals', link: 'https://deals.example.com/espresso?ref=a|b' },
    ])
  })

  test('reaches into arrays nested in arrays and objects nested in objects', () => {
    const out = projectFields(searchBody(), parseFields('results.sitelinks.title,knowledge_graph.source.name,answer_box.answer', SEARCH_KEYS))
    // Results without sitelinks stay in place as {} so the list still lines up with positions.
    expect(out.results).toEqual([{ sitelinks: [{ title: 'Best Overall' }, { title: 'Budget [Pick]' }] }, {}, {}])
    expect(out.knowledge_graph).toEqual({ source: { name: 'Wikipedia' } })
    expect(out.answer_box).toEqual({ answer: '9 bars of pressure' })
  })

  test('a bare top-level name keeps the whole value; unlisted top-level keys stay with no fields (the same top-level keys)', () => {
    const body = searchBody()
    const out = projectFields(body, parseFields('knowledge_graph,related_searches', SEARCH_KEYS))
    expect(Object.keys(out)).toEqual(Object.keys(body))
    expect(out.knowledge_graph).toEqual(body.knowledge_graph)
    expect(out.related_searches).toEqual(body.related_searches)
    // An unnamed list is empty, an unnamed object null.
    expect(out.results).toEqual([])
    expect(out.answer_box).toBeNull()
  })

  test('a shorter path wins over a longer one under it, in either order', () => {
    const body = searchBody()
    for (const spec of ['answer_box.answer,answer_box', 'answer_box,answer_box.answer']) {
      expect(projectFields(body, parseFields(spec, SEARCH_KEYS)).answer_box).toEqual(body.answer_box)
    }
  })

  test('naming meta or a path inside it still returns meta whole', () => {
    const body = searchBody()
    const out = projectFields(body, parseFields('meta.engine,results.position', SEARCH_KEYS))
    expect(out.meta).toEqual(body.meta)
    expect(out.results).toEqual([{ position: 1 }, { position: 2 }, { position: 3 }])
  })

  test('paths deeper than the data or absent from it select nothing', () => {
    const out = projectFields(searchBody(), parseFields('results.title.length,results.missing,top_stories.nope', SEARCH_KEYS))
    expect(out.results).toEqual([{}, {}, {}])
    expect(out.top_stories).toEqual([{}])
  })

  test('a listed key the body lacks stays absent, and nested user fields project on reviews', () => {
    const body = reviewsBody()
    const out = projectFields(body, parseFields('results.user.name,results.rating', topLevelKeys('reviews')))
    expect(Object.keys(out)).toEqual(Object.keys(body))
    expect(out.results).toEqual([
      { rating: 5, user: { name: 'Dana K.' } },
      { rating: 2, user: { name: 'Sam' } },
    ])
  })

  test('does not change the body it was given', () => {
    const body = searchBody()
    const before = structuredClone(body)
    projectFields(body, parseFields('results.title', SEARCH_KEYS))
    expect(body).toEqual(before)
  })
})
