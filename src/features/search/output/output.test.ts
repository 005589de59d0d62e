import { describe, expect, test } from 'vitest'
import { ApiError } from '../../../errors.ts'
import { countTokensNow as countTokens } from '../../../text/token-count.ts'
import { renderSearchResponse, validateOutputOptions } from './output.ts'
import { autocompleteBody, lensBody, reviewsBody, searchBody } from './sample-bodies.fixture.ts'
import { completeBody } from './stable-shape.ts'

function errorOf(run: () => unknown): ApiError {
  try {
    run()
  } catch (err) {
    if (err instanceof ApiError) return err
    throw err
  }
  throw new Error('expected an ApiError')
}

describe('renderSearchResponse', () => {
  test('json: the body with every schema key present, as compact JSON text, with the payload as the token text', () => {
    const body = searchBody()
    const out = renderSearchResponse('search', body, { format: 'json' })
    expect(out.contentType).toBe('application/json; charset=utf-8')
    expect(out.payload).toBe(JSON.stringify(completeBody('search', body)))
    expect(JSON.parse(out.payload).results[1]).toEqual({ ...(body.results[1] as object), displayed_link: null, date: null, sitelinks: [] })
    expect(out.payload).not.toContain('\n')
    expect(out.tokensText).toBe(out.payload)
  })

  test('json + fields: projected, meta and request kept', () => {
    const body = searchBody()
    const out = renderSearchResponse('search', body, { format: 'json', fields: 'results.link,answer_box.answer' })
    expect(JSON.parse(out.payload)).toEqual({
      request: body.request,
      results: [
        { link: 'https://www.seriouseats.com/best-espresso-machines-7100546' },
        { link: 'https://en.wikipedia.org/wiki/Espresso_machine_(coffee)' },
        { link: 'https://deals.example.com/espresso?ref=a|b' },
      ],
      answer_box: { answer: '9 bars of pressure' },
      // The same top-level keys (README.md "Stable shapes"); those not named are empty.
      people_also_ask: [],
      related_searches: [],
      knowledge_graph: null,
      top_stories: [],
      places: [],
      ads: [],
      meta: body.meta,
    })
  })

  test('compact: smaller than json and keeps the same top-level keys', () => {
    const body = searchBody()
    const json = renderSearchResponse('search', body, { format: 'json' })
    const compact = renderSearchResponse('search', body, { format: 'compact' })
    expect(compact.contentType).toBe('application/json; charset=utf-8')
    expect(Object.keys(JSON.parse(compact.payload))).toEqual(Object.keys(body))
    expect(countTokens(compact.tokensText)).toBeLessThan(countTokens(json.tokensText))
  })

  test('compact + fields: the listed fields decide, compact only drops empty values', () => {
    const body = searchBody()
    const out = renderSearchResponse('search', body, { format: 'compact', fields: 'results.displayed_link,results.date' })
    expect(JSON.parse(out.payload)).toEqual({
      request: body.request,
      results: [{ displayed_link: 'https://www.seriouseats.com › Equipment', date: 'Mar 4, 2024' }, {}, {}],
      ...{ people_also_ask: [], related_searches: [], knowledge_graph: null, answer_box: null, top_stories: [], places: [], ads: [] },
      meta: body.meta,
    })
  })

  test('markdown: text/markdown and the Markdown document as the token text', () => {
    const out = renderSearchResponse('reviews', reviewsBody(), { format: 'markdown' })
    expect(out.contentType).toBe('text/markdown; charset=utf-8')
    expect(out.payload.startsWith('# Reviews\n')).toBe(true)
    expect(out.tokensText).toBe(out.payload)
  })

  test('lens and autocomplete still render JSON', () => {
    expect(JSON.parse(renderSearchResponse('lens', lensBody(), { format: 'json' }).payload)).toEqual(lensBody())
    const compact = renderSearchResponse('autocomplete', autocompleteBody(), { format: 'compact' })
    expect(JSON.parse(compact.payload).results).toEqual([{ value: 'espresso' }, { value: 'espresso machine' }])
  })
})

describe('validateOutputOptions', () => {
  test('returns the parsed paths, or undefined without fields', () => {
    expect(validateOutputOptions('news', { format: 'json' })).toBeUndefined()
    expect(validateOutputOptions('reviews', { format: 'compact', fields: 'results.rating,next_page_token' })).toEqual([
      ['results', 'rating'],
      ['next_page_token'],
    ])
  })

  test.each([
    [
      'search',
      { format: 'markdown', fields: 'results.title' },
      'fields cannot be combined with format=markdown; use format=json or format=compact with fields',
    ],
    ['autocomplete', { format: 'markdown' }, 'format=markdown is not available on /v1/autocomplete; use json or compact'],
    ['lens', { format: 'markdown' }, 'format=markdown is not available on /v1/lens; it returns JSON only'],
    ['autocomplete', { format: 'json', fields: 'results.value' }, 'fields is not available on /v1/autocomplete'],
    ['news', { format: 'json', fields: 'people_also_ask' }, 'fields: unknown key "people_also_ask"; allowed: request, results, meta'],
    ['search', { format: 'json', fields: '' }, 'fields: must list at least one path, e.g. results.title,results.link'],
  ] as const)('%s %j is invalid_request', (vertical, options, message) => {
    const err = errorOf(() => renderSearchResponse(vertical, searchBody(), options))
    expect(err.code).toBe('invalid_request')
    expect(err.message).toBe(message)
    expect(errorOf(() => validateOutputOptions(vertical, options)).message).toBe(message)
  })
})

describe('include_content pages (paid for) in every format', () => {
  const withContent = () => {
    const body = searchBody()
    const [first, second] = body.results as Record<string, unknown>[]
    Object.assign(first!, { content: '# Espresso guide\n\nPull a shot at 9 bars.', content_title: 'Espresso guide' })
    Object.assign(second!, { content_error: { code: 'upstream_timeout', message: 'page did not answer in time' } })
    return body
  }

  test('markdown: each read page under its own heading after the results, a failed one says why', () => {
    const out = renderSearchResponse('search', withContent(), { format: 'markdown' }).payload
    // The page's own `# Espresso guide` is the heading's text already: dropped, not a second level-1 heading.
    expect(out).toContain('## Content of result 1: [Espresso guide](https://www.seriouseats.com/best-espresso-machines-7100546)\n\nPull a shot at 9 bars.')
    expect(out).not.toContain('\n# Espresso guide')
    expect(out).toContain(
      '## Content of result 2: [Espresso machine - Wikipedia](https://en.wikipedia.org/wiki/Espresso_machine_%28coffee%29)\n\nNot read: page did not answer in time',
    )
    expect(out.indexOf('## Results')).toBeLessThan(out.indexOf('## Content of result 1'))
    expect(renderSearchResponse('search', searchBody(), { format: 'markdown' }).payload).not.toContain('## Content of result')
  })

  test('compact keeps the content and the error message', () => {
    const results = JSON.parse(renderSearchResponse('search', withContent(), { format: 'compact' }).payload).results
    expect(results[0].content).toBe('# Espresso guide\n\nPull a shot at 9 bars.')
    expect(results[1].content_error).toEqual({ message: 'page did not answer in time' })
    expect(results[2]).not.toHaveProperty('content')
  })
})
