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
  /** Places of the local pack. */
  places?: number
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
    places: 5,
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
      expect(parsed.places?.length ?? 0).toBe(want.places ?? 0)
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

describe('parseBingSearch: the local pack', () => {
  const HOTELS = readFixture('serp/bing/local/hotels-seattle.constructed.html').toString('utf8')

  it('reads name, rating, review count, address, phone and website of each card (2021 capture)', () => {
    expect(parseBingSearch(page('zlurad-coffee-nojs')).places).toEqual([
      {
        position: 1,
        title: 'Brew Coffee',
        rating: 5,
        rating_count: 8,
        address: 'Carrer de Roger de Flor, 102, 08013, Barcelona',
        phone_number: '620 902 694',
        website: 'https://one-week-in.com/best-coffee-shops-barcelona/',
      },
      { position: 2, title: 'Coffee', address: '14, 08002' },
      {
        position: 3,
        title: 'SKYE Coffee',
        rating: 5,
        rating_count: 6,
        address: 'Calle Pamplona 88, 08018, Barcelona',
        phone_number: '699 542 148',
        website: 'https://www.facebook.com/skyecoffeeco/',
      },
      {
        position: 4,
        title: 'Three Marks Coffee',
        rating: 5,
        rating_count: 9,
        address: "Carrer d'Ausias Marc 151, 08013, Barcelona",
        phone_number: '617 824 284',
        website: 'http://threemarkscoffee.com/',
      },
      {
        position: 5,
        title: 'Dalston Coffee',
        rating: 5,
        rating_count: 67,
        address: 'Carrer de Ramelleres, 16-20, 08001, Barcelona',
        phone_number: '600 628 803',
        website: 'https://www.dalstoncoffee.com/',
      },
    ])
  })

  it('reads hotel cards: decimal ratings, counts in titles and as "1.2K" or "N reviews", hotel class, tel: links, redirected websites', () => {
    const parsed = parseBingSearch(HOTELS)
    expect(parsed.results.map((r) => r.link)).toEqual(['https://www.example.org/seattle/hotels', 'https://travel.example.com/seattle'])
    expect(parsed.places).toEqual([
      {
        position: 1,
        title: 'Harborview Grand Hotel',
        rating: 4.5,
        rating_count: 2841,
        type: '4-star hotel',
        address: '1200 Harbor Ave, Seattle, WA 98101',
        phone_number: '(206) 555-0143',
        website: 'https://www.harborview-grand.example/',
      },
      // No address line: the directions link's address; the phone of its tel: link.
      {
        position: 2,
        title: 'Pike Lane Inn',
        rating: 4,
        rating_count: 1200,
        type: '3-star hotel',
        address: '86 Pike St, Seattle, WA 98101',
        phone_number: '+1 206-555-0178',
      },
      // Rating as text ("3.8/5"), the price and the opening hours left out of the kind.
      { position: 3, title: 'Queen Anne Hostel', rating: 3.8, rating_count: 412, type: 'Hostel', address: '15 W Roy St, Seattle, WA 98119' },
    ])
  })

  it('leaves out the side column, organic results and ads', () => {
    const names = (parseBingSearch(HOTELS).places ?? []).map((p) => p.title)
    expect(names).not.toContain('Seattle Visitor Center')
    const html =
      '<ol id="b_results"><li class="b_algo"><h2><a href="https://example.com/">Result</a></h2><div data-ypid="YN1x1"><div class="lc_content"><h2>Inside a result</h2></div></div></li></ol>' +
      '<ol id="b_context"><li class="b_ans"><div data-ypid="YN1x2"><div class="lc_content"><h2>Side panel</h2></div></div></li></ol>'
    expect(parseBingSearch(html).places).toBeUndefined()
  })

  it('a comma decimal in the rating label, and a phone area code is not a review count', () => {
    const html =
      '<ol id="b_results"><li class="b_ans"><div class="b_scard"><div class="lc_content"><h2>Café Sol</h2>' +
      '<div class="b_factrow"><span class="csrc sc_rc1" role="img" aria-label="Valoración: 4,5 de 5"></span></div>' +
      '<div class="b_factrow">Cafetería · (415) 551-1590</div></div></div></li></ol>'
    expect(parseBingSearch(html).places).toEqual([{ position: 1, title: 'Café Sol', rating: 4.5, type: 'Cafetería', phone_number: '(415) 551-1590' }])
  })

  it("when no card can be read, the names of the map answer's business markers", () => {
    const html =
      '<ol id="b_results"><li class="b_ans b_mop"><div id="lMapContainer"><div data-resultsoverlay="{}"></div></div>' +
      '<div etype="Business" ename="Brew Coffee"></div><div class="zzcard"><p>Brew Coffee</p></div>' +
      '<div etype="Business" ename="Dalston Coffee "></div><div class="zzcard"><p>Dalston Coffee</p></div></li>' +
      '<li class="b_algo"><h2><a href="https://example.com/">Result</a></h2><div etype="Business" ename="Not in a map answer"></div></li></ol>'
    expect(parseBingSearch(html).places).toEqual([
      { position: 1, title: 'Brew Coffee' },
      { position: 2, title: 'Dalston Coffee' },
    ])
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
