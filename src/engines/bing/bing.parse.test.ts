import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { detectBingBlock } from './bing.block.ts'
import { parseBingSearch } from './bing.parse.ts'
import { isBingHost, unwrapBingLink } from './bing.util.ts'

const page = (name: string) => readFixture(`serp/bing/web/${name}.html`).toString('utf8')
const SEARCH_URL = 'https://www.bing.com/search?q=x'

interface Expected {
  count: number
  total?: number
  first?: { title: string; link: string; displayed_link?: string }
  /** Results that rightly point at bing.com (the query "bing" finds bing.com itself). */
  bingLinks?: string[]
  blocked?: boolean
}

// Facts read off each capture by hand. Three 2022 archive captures of popular queries are Bing's
// "There are no results for …" page (as served to the archiver), so they are 'empty'.
const EXPECTED: Record<string, Expected> = {
  'aql-classement-premier-league-fr': { count: 0 },
  'aql-dan-robitzski': {
    count: 10,
    total: 25,
    first: {
      title: 'Meet BV-1, the Newest COVID Variant To Be Terrified Of - Futurism',
      link: 'https://futurism.com/neoscope/meet-bv1-newest-covid-variant',
      displayed_link: 'https://futurism.com › neoscope › meet-bv1-newest-covid-variant',
    },
  },
  'aql-eero-pro-mesh-wifi': {
    count: 10,
    total: 37,
    first: { title: 'Amazon eero Pro mesh WiFi system (1 Pro + 1 Beacon)', link: 'https://www.amazon.com/eero-Home-WiFi-System-Beacon/dp/B071HHK2PN' },
  },
  'aql-elon-musk-tesla-stock-drop': { count: 0 },
  'aql-great-blue-heron-sound': {
    count: 10,
    total: 44,
    first: {
      title: 'Protecting a vulnerable great blue heron rookery',
      link: 'https://www.hcn.org/articles/birds-protecting-a-vulnerable-great-blue-heron-rookery',
    },
  },
  'aql-hp-printer-phone': { count: 0 },
  'aql-team-liquid-teams': {
    count: 10,
    total: 44,
    first: { title: 'Team Liquid - Esports Team Summary :: Esports Earnings', link: 'https://www.esportsearnings.com/teams/102-team-liquid' },
  },
  'wsmcp-javascript-tutorial-browser-2026': { count: 0, blocked: true },
  'wsmcp-javascript-tutorial-http-2026': {
    count: 10,
    total: 52,
    first: { title: 'JavaScript Tutorial - W3Schools', link: 'https://www.w3schools.com/Js/', displayed_link: 'https://www.w3schools.com › Js' },
  },
  'zlurad-bing-nojs': { count: 10, total: 106_000_000, first: { title: 'Bing', link: 'https://www.bing.com/' }, bingLinks: ['https://www.bing.com/'] },
  'zlurad-coffee-nojs': {
    count: 4,
    total: 77_100_000,
    first: { title: 'coffee - English-Spanish Dictionary - …', link: 'http://www.wordreference.com/es/translation.asp?tranword=coffee' },
  },
  'zlurad-domain-nojs': { count: 4, total: 449_000_000, first: { title: 'Website Domains Names & Hosting | Domain.com', link: 'https://www.domain.com/' } },
  'zlurad-no-results-nojs': { count: 0 },
}

describe('parseBingSearch: every capture', () => {
  const files = listFixtures('serp/bing/web').map((f) => f.replace(/\.html$/, ''))

  it('has an expectation for every capture', () => {
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  for (const name of files) {
    const want = EXPECTED[name]
    if (!want) continue
    it(`${name}: ${want.count} results`, () => {
      const body = page(name)
      const parsed = parseBingSearch(body)
      expect(parsed.results).toHaveLength(want.count)
      expect(parsed.parse_quality).toBe(want.count ? 'ok' : 'empty')
      expect(parsed.total_results).toBe(want.total)
      if (want.first) expect(parsed.results[0]).toMatchObject({ position: 1, ...want.first })
      expect(parsed.results.map((r) => r.position)).toEqual(parsed.results.map((_, i) => i + 1))
      for (const r of parsed.results) {
        expect(r.title).toBeTruthy()
        expect(r.link).toMatch(/^https?:\/\//)
        expect(r.domain).toBeTruthy()
        expect(r.domain.startsWith('www.')).toBe(false)
        expect(r.title).toBe(r.title.trim())
        expect(r.snippet ?? '').not.toMatch(/\s{2}/)
      }
      expect(parsed.results.filter((r) => isBingHost(new URL(r.link).hostname)).map((r) => r.link)).toEqual(want.bingLinks ?? [])
      const verdict = detectBingBlock({ status: 200, url: SEARCH_URL, body })
      if (want.blocked) expect(verdict?.reason).toBe('Bing challenge page ("One last step")')
      else expect(verdict).toBeNull()
    })
  }
})

describe('parseBingSearch: details', () => {
  it('decodes the /ck/a redirects of the current layout', () => {
    const links = parseBingSearch(page('wsmcp-javascript-tutorial-http-2026')).results.map((r) => r.link)
    expect(links).toContain('https://www.w3schools.com/js/js_intro.asp')
    expect(links.at(-1)).toBe('https://support.w3schools.com/hc/en-gb/articles/4410407881489-Tutorial-Learn-JavaScript')
    expect(links.some((l) => l.includes('/ck/a'))).toBe(false)
  })

  it('reads the organic carousel after the list, in page order', () => {
    const r = parseBingSearch(page('aql-eero-pro-mesh-wifi')).results
    expect(r[6]).toMatchObject({ position: 7, link: 'https://eero.com/technology', domain: 'eero.com' })
    expect(r[9]?.link).toBe('https://eero.com/shop')
  })

  it('takes the news_dt date out of the snippet', () => {
    const [first] = parseBingSearch(page('aql-great-blue-heron-sound')).results
    expect(first?.date).toBe('Aug 12, 2022')
    expect(first?.snippet).toMatch(/^The coniferous trees surrounding the upper Slate River house a great blue heron rookery/)
  })

  it('skips ads and answers; reads deep links, related searches and people also ask', () => {
    const coffee = parseBingSearch(page('zlurad-coffee-nojs'))
    expect(coffee.results.some((r) => r.link.includes('aclick') || r.domain === 'amazon.es')).toBe(false)
    expect(coffee.related_searches?.map((r) => r.query)).toEqual([
      'coffee time',
      'coffee cup',
      'coffee productions',
      'coffee bay sudáfrica',
      'coffee bay south africa',
      'coffee productions sl xirivella',
      'café en inglés',
      'precios starbucks españa',
    ])
    expect(coffee.people_also_ask?.[0]).toEqual({
      question: 'What is coffee coffee?',
      snippet:
        'Coffee. Coffee is a brewed drink prepared from roasted coffee beans, the seeds of berries from certain Coffea species. The genus Coffea is native to tropical Africa (specifically having its origin in Ethiopia and Sudan) and Madagascar, the Comoros, Mauritius, and Réunion in the Indian Ocean.',
      link: 'https://en.wikipedia.org/wiki/coffee_(drink)',
    })
    expect(coffee.people_also_ask).toHaveLength(4)
    const domain = parseBingSearch(page('zlurad-domain-nojs')).results[0]
    expect(domain?.sitelinks?.slice(0, 2)).toEqual([
      { title: 'Login', link: 'https://www.domain.com/secure/login.bml' },
      { title: 'Professional Web Design', link: 'https://www.domain.com/web-design-services' },
    ])
    expect(domain?.sitelinks).toHaveLength(8)
  })

  it('refuses page 1 served for a later page (past the end, or quiet rate limiting)', () => {
    const body = page('wsmcp-javascript-tutorial-http-2026')
    expect(parseBingSearch(body, { offset: 10 })).toEqual({ results: [], parse_quality: 'empty', total_results: 52 })
    expect(parseBingSearch(body, { offset: 0 }).results).toHaveLength(10)
    const later = body.replace('class="sb_pagS sb_pagS_bp b_widePag sb_bp sb_pag_first">1<', 'class="sb_pagS sb_pagS_bp b_widePag sb_bp">2<')
    expect(parseBingSearch(later, { offset: 10 }).results).toHaveLength(10)
  })

  it('a result whose link cannot be read makes the page partial', () => {
    const html =
      '<ol id="b_results"><li class="b_algo"><h2><a href="/aclick?ld=x">Ad-like</a></h2></li>' +
      '<li class="b_algo"><h2><a href="https://example.com/a">Kept</a></h2><div class="b_caption"><p><span class="algoSlug_icon">WEB</span>Text  here</p></div></li></ol>'
    const parsed = parseBingSearch(html)
    expect(parsed.parse_quality).toBe('partial')
    expect(parsed.results).toEqual([{ position: 1, title: 'Kept', link: 'https://example.com/a', domain: 'example.com', snippet: 'Text here' }])
    expect(parseBingSearch('<ol id="b_results"><li class="b_algo"><h2>No link</h2></li></ol>').parse_quality).toBe('partial')
  })
})

describe('unwrapBingLink', () => {
  it('decodes ck/a targets and news clicks, resolves relative links, drops ad clicks', () => {
    expect(unwrapBingLink('https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly93d3cudzNzY2hvb2xzLmNvbS9Kcy8&ntb=1')).toBe('https://www.w3schools.com/Js/')
    expect(unwrapBingLink('/ck/a?u=a1aHR0cHM6Ly9leGFtcGxlLmNvbS8_cT3DqQ&ntb=1')).toBe('https://example.com/?q=%C3%A9')
    expect(unwrapBingLink('http://www.bing.com/news/apiclick.aspx?ref=FexRss&url=https%3a%2f%2fexample.org%2fa%3fb%3d1&c=1')).toBe('https://example.org/a?b=1')
    expect(unwrapBingLink('/search?q=coffee')).toBe('https://www.bing.com/search?q=coffee')
    expect(unwrapBingLink('https://www.bing.com/aclick?ld=e8_Ych')).toBeUndefined()
    expect(unwrapBingLink('javascript:void(0)')).toBeUndefined()
    expect(unwrapBingLink('https://www.bing.com/ck/a?u=a1bm90IGEgdXJs')).toBeUndefined()
  })
})
