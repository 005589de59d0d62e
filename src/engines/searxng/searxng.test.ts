import { describe, expect, it } from 'vitest'
import { searchRequest, verticalRequest } from '../../../test/support/engine-requests.ts'
import { readFixture } from '../../../test/support/fixtures.ts'
import type { ParsedSearchPage } from '../engine.types.ts'
import { searchRoute } from '../provider.routes.ts'
import type { EngineFetch } from '../provider.types.ts'
import { UpstreamError } from '../upstream/upstream-error.ts'
import { detectSearxngBlock, explainSearxngFailure } from './searxng.block.ts'
import { searxngAnswer } from './searxng.fixture.ts'
import {
  durationOf,
  parseSearxngImages,
  parseSearxngNews,
  parseSearxngVideos,
  parseSearxngWeb,
  readSearxngJson,
  SEARXNG_LIMITS,
  unresponsiveEngines,
} from './searxng.parse.ts'
import { searxngProvider } from './searxng.provider.ts'
import { buildSearxngRequest, searxngInstance, searxngLanguage, verticalParams, webParams } from './searxng.request.ts'

const instance = searxngInstance('http://searx.local:8888')
const params = (url: string) => Object.fromEntries(new URL(url).searchParams)

describe('TRAWL_SEARXNG_URL', () => {
  it('is the base of /search: a trailing slash or /search dropped, a path prefix kept', () => {
    expect(searxngInstance('http://searx.local:8888/').base).toBe('http://searx.local:8888')
    expect(searxngInstance('https://example.org/searx/search?q=x').base).toBe('https://example.org/searx')
  })

  it('turns user:password@ into Basic authentication, out of the URL', () => {
    const i = searxngInstance('https://trawl:s%40cret@searx.example/')
    expect(i.base).toBe('https://searx.example')
    expect(i.authorization).toBe(`Basic ${Buffer.from('trawl:s@cret').toString('base64')}`)
    expect(buildSearxngRequest(i, webParams(searchRequest())).headers.Authorization).toBe(i.authorization)
  })
})

describe('buildSearxngRequest', () => {
  it('asks /search with format=json, the category, pageno, language and safesearch', () => {
    const req = buildSearxngRequest(instance, webParams(searchRequest({ q: 'espresso machine' })))
    expect(req.urls).toEqual(['http://searx.local:8888/search?q=espresso%20machine&format=json&categories=general&pageno=1&language=en-US&safesearch=0'])
    expect(req.skip).toBe(0)
    expect(req.headers).toMatchObject({ Accept: expect.stringContaining('text/html'), 'Accept-Language': 'en' })
    expect(req.headers['User-Agent']).toMatch(/^Trawl\//)
  })

  it('maps time (hour as day), safe=active to 2, and the verticals to their categories', () => {
    const p = params(buildSearxngRequest(instance, webParams(searchRequest({ time: 'hour', safe: 'active' }))).urls[0] ?? '')
    expect(p).toMatchObject({ time_range: 'day', safesearch: '2' })
    expect(params(buildSearxngRequest(instance, webParams(searchRequest({ time: 'week' }))).urls[0] ?? '').time_range).toBe('week')
    for (const category of ['news', 'images', 'videos'] as const) {
      const url = buildSearxngRequest(instance, verticalParams(verticalRequest(category, { q: 'x', time: 'month' }), category)).urls[0] ?? ''
      expect(params(url)).toMatchObject({ categories: category, time_range: 'month', pageno: '1' })
    }
  })

  it('reads num from consecutive pages (20 counted a page) and never overlaps pages', () => {
    const pagenos = (num: 10 | 20 | 30 | 50 | 100, page: number) =>
      buildSearxngRequest(instance, webParams(searchRequest({ num, page }))).urls.map((u) => params(u).pageno)
    expect(pagenos(10, 1)).toEqual(['1'])
    expect(pagenos(10, 3)).toEqual(['3'])
    expect(pagenos(20, 2)).toEqual(['2'])
    expect(pagenos(50, 1)).toEqual(['1', '2', '3'])
    expect(pagenos(50, 2)).toEqual(['4', '5', '6'])
    expect(pagenos(100, 1)).toEqual(['1', '2', '3', '4', '5'])
    // An exact offset inside a page (customsearch's start) reads that page and skips into it.
    const offset = buildSearxngRequest(instance, webParams(searchRequest({ offset: 14 })))
    expect(offset.urls.map((u) => params(u).pageno)).toEqual(['2'])
    expect(offset.skip).toBe(4)
  })

  it('sends ll-CC: the language region, else the country; all for what is not a language', () => {
    expect(searxngLanguage('pt-BR', 'us')).toBe('pt-BR')
    expect(searxngLanguage('en', 'gb')).toBe('en-GB')
    expect(searxngLanguage('de', undefined)).toBe('de')
    expect(searxngLanguage('zh-Hant', 'tw')).toBe('zh-TW')
    expect(searxngLanguage('123', 'us')).toBe('all')
  })
})

describe('parsing SearXNG JSON', () => {
  it('reads web results, snippets as text, dates, the total, suggestions, the answer and the infobox', () => {
    const page = parseSearxngWeb(readSearxngJson(JSON.stringify(searxngAnswer())) ?? {})
    expect(page.parse_quality).toBe('ok')
    expect(page.total_results).toBe(1230000)
    expect(page.results.map((r) => [r.position, r.title, r.link, r.domain])).toEqual([
      [1, 'Espresso - Wikipedia', 'https://en.wikipedia.org/wiki/Espresso', 'en.wikipedia.org'],
      [2, 'How to pull a shot', 'https://www.example.com/guide', 'example.com'],
      [3, 'untitled.example.org', 'https://untitled.example.org/page', 'untitled.example.org'],
    ])
    expect(page.results[1]).toMatchObject({ snippet: 'A step by step guide & tips.', date: '2025-03-02T00:00:00' })
    expect(page.results[0]?.date).toBeUndefined()
    expect(page.related_searches).toEqual([{ query: 'espresso machine' }, { query: 'espresso martini' }])
    expect(page.answer_box).toEqual({
      type: 'answer',
      answer: 'Espresso: 63 mg of caffeine per shot',
      link: 'https://www.example.com/caffeine',
      domain: 'example.com',
    })
    expect(page.knowledge_graph).toEqual({
      title: 'Espresso',
      description: 'Coffee brewing method',
      image_url: 'https://upload.wikimedia.org/espresso.jpg',
      website: 'https://espresso.example/',
      source: { name: 'wikipedia', link: 'https://en.wikipedia.org/wiki/Espresso' },
      attributes: { Origin: 'Italy' },
    })
  })

  it('reads answers as plain strings too (SearXNG before 2025)', () => {
    const page = parseSearxngWeb(searxngAnswer({ answers: ['42'] }))
    expect(page.answer_box).toEqual({ type: 'answer', answer: '42' })
  })

  it('is not JSON for an HTML page, and tolerates raw control characters in strings', () => {
    expect(readSearxngJson('<!DOCTYPE html><html></html>')).toBeUndefined()
    expect(readSearxngJson('{"error": "x"}')).toBeUndefined()
    const raw = JSON.stringify(searxngAnswer()).replace('high pressure', 'high\u0007pressure')
    expect(parseSearxngWeb(readSearxngJson(raw) ?? {}).results[0]?.snippet).toContain('high pressure')
  })

  it('reads news, images and videos results', () => {
    const news = parseSearxngNews(
      searxngAnswer({
        results: [
          {
            url: 'https://news.example/a',
            title: 'Espresso prices rise',
            content: 'Beans cost more.',
            publishedDate: '2026-01-05T08:30:00+00:00',
            thumbnail: 'https://news.example/a.jpg',
            source: 'Example News',
            engine: 'bing news',
            category: 'news',
          },
        ],
      }),
    )
    expect(news.results).toEqual([
      {
        position: 1,
        title: 'Espresso prices rise',
        link: 'https://news.example/a',
        domain: 'news.example',
        snippet: 'Beans cost more.',
        date: '2026-01-05T08:30:00+00:00',
        source: 'Example News',
        image_url: 'https://news.example/a.jpg',
      },
    ])
    const images = parseSearxngImages(
      searxngAnswer({
        results: [
          {
            url: 'https://photos.example/page',
            title: 'A cup',
            img_src: 'https://photos.example/cup.jpg',
            thumbnail_src: 'https://photos.example/cup-small.jpg',
            resolution: '1920 x 1080',
            source: 'photos.example',
            engine: 'bing images',
            template: 'images.html',
          },
          { url: 'https://photos.example/none', title: 'no image', engine: 'x' },
        ],
      }),
    )
    expect(images.results).toEqual([
      {
        position: 1,
        title: 'A cup',
        image_url: 'https://photos.example/cup.jpg',
        image_width: 1920,
        image_height: 1080,
        thumbnail_url: 'https://photos.example/cup-small.jpg',
        source: 'photos.example',
        link: 'https://photos.example/page',
        domain: 'photos.example',
      },
    ])
    const videos = parseSearxngVideos(
      searxngAnswer({
        results: [
          {
            url: 'https://www.youtube.com/watch?v=abc',
            title: 'Pulling a shot',
            content: 'Tutorial',
            thumbnail: 'https://i.ytimg.com/vi/abc/hqdefault.jpg',
            length: 754,
            author: 'Coffee Channel',
            engine: 'youtube',
            template: 'videos.html',
          },
        ],
      }),
    )
    expect(videos.results[0]).toMatchObject({
      duration: '12:34',
      channel: 'Coffee Channel',
      source: 'youtube',
      image_url: 'https://i.ytimg.com/vi/abc/hqdefault.jpg',
    })
    expect(durationOf('3:05')).toBe('3:05')
    expect(durationOf(3725)).toBe('1:02:05')
    expect(durationOf(null)).toBeUndefined()
  })
})

describe('bounds on what an answer may hold', () => {
  const huge = 'word '.repeat(200_000)

  it('cuts titles, snippets and short fields before reading them, never inside a surrogate pair', () => {
    const title = `a${'😀'.repeat(300)}`
    const page = parseSearxngWeb(
      searxngAnswer({
        results: [{ url: 'https://a.example/', title, content: huge, engine: 'bing' }],
        answers: [{ answer: huge, url: 'https://a.example/' }],
        suggestions: Array.from({ length: 1000 }, (_, i) => `${i} ${huge.slice(0, 1000)}`),
        infoboxes: [{ infobox: huge, content: huge, attributes: Array.from({ length: 500 }, (_, i) => ({ label: `l${i}`, value: huge })) }],
      }),
    )
    const [first] = page.results
    // The 512th UTF-16 unit is the first half of an emoji: the cut moves before it.
    expect(first?.title).toBe(`a${'😀'.repeat(255)}…`)
    expect(first?.snippet?.length).toBeLessThanOrEqual(SEARXNG_LIMITS.text + 1)
    expect(page.answer_box?.answer?.length).toBeLessThanOrEqual(SEARXNG_LIMITS.text + 1)
    expect(page.related_searches).toHaveLength(SEARXNG_LIMITS.items)
    for (const { query } of page.related_searches ?? []) expect(query.length).toBeLessThanOrEqual(SEARXNG_LIMITS.short + 1)
    expect(page.knowledge_graph?.title.length).toBeLessThanOrEqual(SEARXNG_LIMITS.title + 1)
    expect(Object.keys(page.knowledge_graph?.attributes ?? {})).toHaveLength(SEARXNG_LIMITS.items)
  })

  it('drops links longer than any real one instead of cutting them, and reads at most 100 results a page', () => {
    const results = [
      { url: `https://a.example/${'x'.repeat(SEARXNG_LIMITS.url)}`, title: 'too long', engine: 'bing' },
      ...Array.from({ length: 500 }, (_, i) => ({ url: `https://a.example/${i}`, title: `r${i}`, engine: 'bing' })),
    ]
    const page = parseSearxngWeb(searxngAnswer({ results }))
    expect(page.results).toHaveLength(SEARXNG_LIMITS.items - 1)
    expect(page.results[0]?.link).toBe('https://a.example/0')
  })

  it('cuts the failure reasons an instance reports', () => {
    const failed = unresponsiveEngines({ unresponsive_engines: Array.from({ length: 500 }, () => ['google', huge]) })
    expect(failed).toHaveLength(SEARXNG_LIMITS.items)
    expect(failed[0]?.[1].length).toBe(SEARXNG_LIMITS.short + 1)
  })
})

describe('refusals', () => {
  it('a bot-verification page is a block; JSON never is', () => {
    const page = readFixture('serp/searxng/blocked/wsmcp-searx-be-verifying-request-2026.html').toString('utf8')
    expect(detectSearxngBlock({ status: 200, url: 'https://searx.be/search', body: page })?.reason).toMatch(/bot-verification/)
    expect(detectSearxngBlock({ status: 200, url: 'https://searx.local/search', body: JSON.stringify(searxngAnswer()) })).toBeNull()
  })

  it('403, 401, 404 and 429 say what the operator has to change', () => {
    const failed = (status: number, outcome: 'error' | 'blocked' = 'error') =>
      new UpstreamError('upstream_error', `searxng results could not be fetched: HTTP ${status}`, [
        { engine: 'searxng', host: 'searx.local', pool: null, status, outcome, ms: 1 },
      ])
    const json = explainSearxngFailure(failed(403)) as UpstreamError
    expect(json.code).toBe('upstream_error')
    expect(json.message).toBe('the SearXNG instance does not allow format=json; enable it in settings.yml search.formats')
    expect(json.attempts).toEqual([])
    expect((explainSearxngFailure(failed(401)) as Error).message).toMatch(/HTTP authentication/)
    expect((explainSearxngFailure(failed(429, 'blocked')) as UpstreamError).code).toBe('upstream_blocked')
    const other = failed(500)
    expect(explainSearxngFailure(other)).toBe(other)
  })
})

describe('searxngProvider', () => {
  const provider = searxngProvider('http://searx.local:8888')
  const answering =
    (pages: Record<string, Record<string, unknown>>, seen: string[] = []): EngineFetch =>
    async (url) => {
      seen.push(url)
      const pageno = new URL(url).searchParams.get('pageno') ?? '1'
      return { status: 200, url, body: JSON.stringify(pages[pageno] ?? searxngAnswer({ results: [] })) }
    }
  const result = (n: number) => ({ url: `https://site${n}.example/`, title: `Result ${n}`, content: `snippet ${n}`, engine: 'google' })

  it('fills a window of num from consecutive pages, repeats dropped, stopping when the window is full', async () => {
    const seen: string[] = []
    const fetch = answering(
      {
        '1': searxngAnswer({ results: Array.from({ length: 18 }, (_, i) => result(i + 1)) }),
        '2': searxngAnswer({ results: [result(18), ...Array.from({ length: 20 }, (_, i) => result(i + 19))] }),
        '3': searxngAnswer({ results: [result(99)] }),
      },
      seen,
    )
    const page = (await searchRoute(provider.search, searchRequest({ engine: 'searxng', num: 30 }), fetch)) as ParsedSearchPage
    expect(seen.map((u) => new URL(u).searchParams.get('pageno'))).toEqual(['1', '2'])
    expect(page.results.map((r) => r.title)).toEqual(Array.from({ length: 30 }, (_, i) => `Result ${i + 1}`))
    expect(page.results.map((r) => r.position)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(page.knowledge_graph?.title).toBe('Espresso')
  })

  it('an empty answer while its engines failed is a failure, blocked when one was refused', async () => {
    const blocked = answering({
      '1': searxngAnswer({
        results: [],
        unresponsive_engines: [
          ['google', 'CAPTCHA'],
          ['bing', 'timeout'],
        ],
      }),
    })
    const err = await searchRoute(provider.search, searchRequest({ engine: 'searxng' }), blocked).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UpstreamError)
    expect((err as UpstreamError).code).toBe('upstream_blocked')
    expect((err as Error).message).toBe("no results: the SearXNG instance's engines failed: google (CAPTCHA), bing (timeout)")
    const failed = answering({ '1': searxngAnswer({ results: [], unresponsive_engines: [['bing', 'timeout']] }) })
    expect(((await searchRoute(provider.search, searchRequest(), failed).catch((e: unknown) => e)) as UpstreamError).code).toBe('upstream_error')
    // Truly nothing found: an empty page, which health counts as a clean answer.
    const empty = await searchRoute(provider.search, searchRequest(), answering({ '1': searxngAnswer({ results: [], unresponsive_engines: [] }) }))
    expect(empty).toMatchObject({ results: [], parse_quality: 'empty', saysNoResults: true })
  })

  it('an answer that is not SearXNG JSON is an error naming the setting', async () => {
    const html: EngineFetch = async (url) => ({ status: 200, url, body: '<!DOCTYPE html><title>SearXNG</title>' })
    const err = (await searchRoute(provider.search, searchRequest(), html).catch((e: unknown) => e)) as Error
    expect(err.message).toMatch(/did not answer JSON.*TRAWL_SEARXNG_URL/)
  })

  it('verticals ask their category and keep the window', async () => {
    const seen: string[] = []
    const images = provider.verticals.images
    const fetch = answering(
      {
        '1': searxngAnswer({
          results: Array.from({ length: 25 }, (_, i) => ({ url: `https://p.example/${i}`, title: `Image ${i}`, img_src: `https://p.example/${i}.jpg` })),
        }),
      },
      seen,
    )
    const page = (await images?.run(verticalRequest('images', { q: 'cup', num: 10 }), fetch)) as { results: { title: string }[] }
    expect(page.results).toHaveLength(10)
    expect(params(seen[0] ?? '')).toMatchObject({ categories: 'images', pageno: '1' })
  })
})
