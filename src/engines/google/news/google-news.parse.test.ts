import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import { isRssFeed } from '../../parse/text.ts'
import type { EngineFetch } from '../../provider.types.ts'
import { detectGoogleNewsBlock } from './google-news.block.ts'
import { parseGoogleNews } from './google-news.parse.ts'
import { googleNews } from './google-news.ts'

// Constructed to the feed's format (see the README beside it): there is no real capture.
const FEED = readFileSync(new URL('../../../../test/fixtures/google/news/news-rss-ai-regulation.constructed.xml', import.meta.url), 'utf8')
const FEED_URL = 'https://news.google.com/rss/search?q=ai%20regulation&hl=en-US&gl=US&ceid=US%3Aen'
const req = (r: Partial<VerticalRequest> = {}): VerticalRequest => ({ endpoint: 'news', q: 'ai regulation', num: 10, page: 1, ...r })

describe('parseGoogleNews: RSS search feed', () => {
  const all = parseGoogleNews(FEED).results

  it('reads every item in feed order', () => {
    expect(all).toHaveLength(14)
    expect(all.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
    expect(parseGoogleNews(FEED).parse_quality).toBe('ok')
  })

  it('strips " - Publisher" from the title; domain is the publisher site; link is the feed link', () => {
    expect(all[0]).toEqual({
      position: 1,
      title: 'EU publishes final code of practice for general-purpose AI models',
      link: 'https://news.google.com/rss/articles/CBMiQVVfeXFM8iZlpgwS0okYXZUO6IE2CRZvaxE9F41sD9OQH_I5oaCV8g-TlWUM-TgLjtsiSmskih6STo_Qri4alJKjMF8YjLYQkA-eNH-uiG3GUHeV7HRcTD_LLrLHPhSTTIZ-4Fe6ckmb-hIeg2sq?oc=5',
      domain: 'reuters.com',
      date: 'Sat, 21 Nov 2026 09:14:00 GMT',
      source: 'Reuters',
    })
    expect(all[2]).toMatchObject({ title: 'UK sets out new powers for its AI Security Institute', source: 'BBC', domain: 'bbc.co.uk' })
    expect(all[8]).toMatchObject({ source: 'Yahoo Finance', domain: 'finance.yahoo.com' })
  })

  it('decodes entities and keeps " - " inside a headline', () => {
    expect(all[1]?.title).toBe("Lawmakers & regulators split over AI 'kill switch' bill")
    expect(all[3]?.title).toBe('AI Act explained - what changes for startups in 2027')
    expect(all[5]?.title).toBe('Study: <1% of AI incidents are ever reported to regulators')
    expect(all[6]?.title).toBe('Why ‘AI agents’ are the regulators’ next headache — analysis')
  })

  it('takes the headline from the description when the title suffix is not the source name', () => {
    expect(all[7]).toMatchObject({ title: 'Senate panel advances AI disclosure bill', source: 'The Hill', domain: 'thehill.com' })
  })

  it('without <source>, the publisher comes from the description and the domain from the link', () => {
    expect(all[9]).toMatchObject({ title: 'California agency finalises automated decision-making rules', source: 'CalMatters', domain: 'news.google.com' })
  })

  it('headline-only and cluster descriptions give no snippet; an item without description still parses', () => {
    expect(all.filter((r) => r.snippet)).toEqual([])
    expect(all[4]).toMatchObject({ title: 'States race to pass AI laws before federal preemption vote', source: 'The Associated Press', domain: 'apnews.com' })
    expect(all[6]).toMatchObject({ source: 'Financial Times', domain: 'ft.com', date: 'Fri, 20 Nov 2026 06:00:00 GMT' })
  })

  it('pages through the feed: items [(page-1)*num, page*num) with matching positions', () => {
    const p2 = parseGoogleNews(FEED, req({ page: 2 }))
    expect(p2.results.map((r) => [r.position, r.source])).toEqual([
      [11, 'The Japan Times'],
      [12, 'Forbes'],
      [13, 'CBC'],
      [14, 'Reuters'],
    ])
    expect(parseGoogleNews(FEED, req({ num: 20 })).results).toHaveLength(14)
    expect(parseGoogleNews(FEED, req({ page: 3 }))).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
  })

  it('enforces domain filters on the publisher site before paging (a path rule is checked on its host)', () => {
    const reuters = parseGoogleNews(FEED, req({ include_domains: ['reuters.com/world'] }))
    expect(reuters.results.map((r) => [r.position, r.title])).toEqual([
      [1, 'EU publishes final code of practice for general-purpose AI models'],
      [2, 'Brazil’s Senate approves AI framework, sends it to the lower house'],
    ])
    const noUk = parseGoogleNews(FEED, req({ num: 20, exclude_domains: ['.uk', 'reuters.com'] }))
    expect(noUk.results).toHaveLength(11)
    expect(noUk.results.some((r) => r.domain === 'bbc.co.uk' || r.domain === 'reuters.com')).toBe(false)
  })
})

describe('parseGoogleNews: other item shapes', () => {
  const rss = (items: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel>${items}</channel></rss>`

  it('reads an image from media:content or the description, and a description that adds text as snippet', () => {
    const page = parseGoogleNews(
      rss(
        '<item><title>Wind output hits record - Example Times</title><link>https://news.google.com/rss/articles/CBMiA?oc=5</link>' +
          '<description>&lt;img src="https://img.example.com/a.jpg"&gt;Turbines produced more power than coal for the first time.</description>' +
          '<source url="https://example.com">Example Times</source></item>' +
          '<item><title>Solar tariffs cut - Example Post</title><link>https://news.google.com/rss/articles/CBMiB?oc=5</link>' +
          '<media:content url="https://img.example.com/b.jpg" medium="image" width="800" height="450"/><source url="https://post.example.net">Example Post</source></item>',
      ),
    )
    expect(page.results).toEqual([
      {
        position: 1,
        title: 'Wind output hits record',
        link: 'https://news.google.com/rss/articles/CBMiA?oc=5',
        domain: 'example.com',
        snippet: 'Turbines produced more power than coal for the first time.',
        source: 'Example Times',
        image_url: 'https://img.example.com/a.jpg',
      },
      {
        position: 2,
        title: 'Solar tariffs cut',
        link: 'https://news.google.com/rss/articles/CBMiB?oc=5',
        domain: 'post.example.net',
        source: 'Example Post',
        image_url: 'https://img.example.com/b.jpg',
      },
    ])
  })

  it('an item without a link is skipped and makes the page partial', () => {
    const page = parseGoogleNews(
      rss('<item><title>No link here</title></item><item><title>Kept - X</title><link>https://news.google.com/rss/articles/C?oc=5</link></item>'),
    )
    expect(page.parse_quality).toBe('partial')
    expect(page.results.map((r) => r.title)).toEqual(['Kept - X'])
  })

  it('an empty feed is empty', () => {
    expect(parseGoogleNews(rss('<title>"zzqx" - Google News</title>'))).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
  })
})

describe('block detection', () => {
  const consent =
    '<!DOCTYPE html><html><head><title>Before you continue to Google News</title></head><body><form action="https://consent.google.com/save" method="POST"></form></body></html>'

  it('accepts the feed, even when a headline reads like a block page', () => {
    expect(isRssFeed(FEED)).toBe(true)
    expect(detectGoogleNewsBlock({ status: 200, url: FEED_URL, body: FEED })).toBeNull()
    const tricky = FEED.replace('Canada tables revised AI and data bill', 'Before you continue to Google: unusual traffic g-recaptcha')
    expect(detectGoogleNewsBlock({ status: 200, url: FEED_URL, body: tricky })).toBeNull()
  })

  it('refuses the CAPTCHA page, a consent page and any other non-RSS body, which never parse as results', () => {
    const captcha = fixture('serp/google/web-desktop/zlurad-recaptcha.html').toString('utf8')
    expect(detectGoogleNewsBlock({ status: 200, url: FEED_URL, body: captcha })).toEqual({ code: 'upstream_blocked', reason: 'CAPTCHA page' })
    expect(parseGoogleNews(captcha)).toEqual({ results: [], parse_quality: 'empty' })
    expect(detectGoogleNewsBlock({ status: 200, url: 'https://consent.google.com/ml?continue=https://news.google.com/rss', body: consent })?.reason).toBe(
      'consent page',
    )
    expect(detectGoogleNewsBlock({ status: 200, url: FEED_URL, body: consent })?.code).toBe('upstream_blocked')
    expect(detectGoogleNewsBlock({ status: 200, url: FEED_URL, body: '' })?.reason).toBe('Google News answered with an empty body')
    expect(parseGoogleNews(consent)).toEqual({ results: [], parse_quality: 'empty' })
  })

  it('refuses rate limiting and the sorry redirect even with an RSS body', () => {
    expect(detectGoogleNewsBlock({ status: 429, url: FEED_URL, body: FEED })?.reason).toBe('HTTP 429 (too many requests)')
    expect(detectGoogleNewsBlock({ status: 200, url: 'https://www.google.com/sorry/index?continue=x', body: '' })?.code).toBe('upstream_blocked')
  })
})

describe('googleNews.run', () => {
  it('fetches the feed once with the news block detector and returns the requested page', async () => {
    const seen: string[] = []
    const fetch: EngineFetch = async (url, _headers, detectBlock) => {
      seen.push(url)
      expect(detectBlock?.({ status: 200, url, body: '<html><body>Sorry</body></html>' })).not.toBeNull()
      return { status: 200, url, body: FEED }
    }
    const answer = await googleNews.run(req({ page: 2, time: 'week' }), fetch)
    expect(seen).toEqual(['https://news.google.com/rss/search?q=ai%20regulation%20when%3A7d&hl=en-US&gl=US&ceid=US%3Aen'])
    expect(answer.results.map((r) => r.position)).toEqual([11, 12, 13, 14])
    expect(answer.parse_quality).toBe('ok')
  })
})
