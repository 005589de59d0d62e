import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import type { ParsedSearchPage } from '../engine.types.ts'
import { isGoogleInternal } from './google-dom.util.ts'
import { detectLayout, parseGoogleSearch } from './google-search.parse.ts'

const read = (path: string) => readFixture(`serp/google/${path}`).toString('utf8')
const page = (path: string, includeAds = false): ParsedSearchPage => parseGoogleSearch(read(path), { includeAds })

describe('no-JS layout (gbv=1)', () => {
  it('zlurad-google-nojs: /url?q= links unwrapped, breadcrumb line, inline sitelinks', () => {
    const p = page('web-nojs/zlurad-google-nojs.html')
    expect(detectLayout(cheerio.load(read('web-nojs/zlurad-google-nojs.html')))).toBe('basic')
    expect(p.parse_quality).toBe('ok')
    expect(p.results).toHaveLength(10)
    expect(p.results[0]).toEqual({
      position: 1,
      title: 'Google',
      link: 'https://www.google.com/',
      domain: 'google.com',
      displayed_link: 'www.google.com',
      snippet:
        "Search the world's information, including webpages, images, videos and more. Google has many special features to help you find exactly what you're looking for.",
      sitelinks: [
        { title: 'Google device', link: 'https://www.google.com/device' },
        { title: 'Docs', link: 'https://www.google.com/docs/about/' },
        { title: 'Drive', link: 'https://www.google.com/drive/' },
        { title: 'Images', link: 'https://www.google.com/imghp?hl=EN' },
      ],
    })
    expect(p.results[1]).toMatchObject({ title: 'Google Account', displayed_link: 'www.google.com › account › about' })
    expect(p.results[9]).toMatchObject({ link: 'https://edu.google.com/workspace-for-education/classroom/', domain: 'edu.google.com' })
  })

  it('zlurad-google-nojs: entity card and related searches', () => {
    const p = page('web-nojs/zlurad-google-nojs.html')
    expect(p.knowledge_graph).toMatchObject({
      title: 'Google',
      type: 'Technology company',
      website: 'http://www.google.com/',
      source: { name: 'Wikipedia', link: 'https://en.wikipedia.org/wiki/Google' },
    })
    expect(p.knowledge_graph?.description).toMatch(/^Google LLC is an American multinational technology company/)
    expect(p.knowledge_graph?.attributes).toMatchObject({
      Founders: 'Larry Page and Sergey Brin',
      CEO: 'Sundar Pichai (Oct 2, 2015–)',
      Founded: 'September 4, 1998, Menlo Park, CA',
    })
    expect(p.related_searches?.map((r) => r.query)).toEqual([
      'www.google search web',
      'Google account',
      'Google Maps',
      'Google Mail',
      'Google Play',
      'Google image search upload',
      'Google Account sign in',
      'Google Images',
    ])
  })

  it('zlurad-google100-nojs: 99 results', () => {
    const p = page('web-nojs/zlurad-google100-nojs.html')
    expect(p.results).toHaveLength(99)
    expect(p.results.at(-1)?.position).toBe(99)
  })

  it('zlurad-coffee-nojs: places, answered questions and dates', () => {
    const p = page('web-nojs/zlurad-coffee-nojs.html')
    expect(p.results).toHaveLength(10)
    expect(p.results[5]).toMatchObject({
      title: '31 Coffee Brands, Ranked From Worst To Best - Tasting Table',
      date: 'Mar 2, 2023',
      displayed_link: 'www.tastingtable.com › coffee-brands-ranked-from-worst-to-best',
    })
    expect(p.results[5]?.snippet).toMatch(/^From café chains to retail roasters/)
    expect(p.places?.[0]).toEqual({
      position: 1,
      title: "Scooter's Coffee",
      cid: '6488039785144263502',
      rating: 4.5,
      rating_count: 60,
      type: 'Coffee shop',
      address: 'Independence, KS',
    })
    expect(p.people_also_ask?.[1]).toMatchObject({
      question: 'Is coffee actually healthy for you?',
      link: 'https://www.hsph.harvard.edu/news/hsph-in-the-news/is-coffee-good-or-bad-for-your-health/',
    })
    expect(p.people_also_ask?.[1]?.snippet).toMatch(/^“For most people, moderate coffee consumption can be incorporated/)
  })

  it('zlurad-domain-nojs: inline ads and the entity card', () => {
    const p = page('web-nojs/zlurad-domain-nojs.html', true)
    expect(p.results).toHaveLength(9)
    // godaddy.com is also an organic result here; the ad itself must not be one.
    expect(p.results.map((r) => r.title)).not.toContain('Buy Domain Names - .com Domains From $2.99')
    expect(p.ads?.[0]).toMatchObject({ title: 'Buy Domain Names - .com Domains From $2.99', link: 'https://www.godaddy.com/' })
    expect(p.ads?.map((a) => [a.block, a.domain])).toEqual([
      ['top', 'godaddy.com'],
      ['bottom', 'top10.com'],
    ])
    expect(p.knowledge_graph).toMatchObject({ title: 'Domain name', type: 'Application programming interface' })
  })

  it('zlurad-no-results-nojs: empty', () => {
    expect(page('web-nojs/zlurad-no-results-nojs.html')).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
  })
})

describe('basic layout from archive captures', () => {
  it('aql-focusrite: results, answered questions and accordion related searches', () => {
    const p = page('web-basic/aql-focusrite.html')
    expect(p.results).toHaveLength(9)
    expect(p.results[0]).toEqual({
      position: 1,
      title: 'USB Interfaces | Focusrite',
      link: 'https://focusrite.com/en/usb-interfaces',
      domain: 'focusrite.com',
      displayed_link: 'focusrite.com › usb-interfaces',
      snippet:
        'Record your guitar. Record you. · The essential audio interface. · Studio-quality sound for all your instruments. · For the hardware music maker. · Get the band ...',
    })
    expect(p.results[1]?.snippet).toBe(
      'Skip to main content. Downloads. Home. Downloads. Pick your brand. Ampify, Focusrite, Focusrite Pro, Novation. Pick your product by range.',
    )
    expect(p.results[1]?.sitelinks?.[0]?.title).toBe('Focusrite Control 3.6.0')
    expect(p.people_also_ask?.[0]).toMatchObject({
      question: 'What is focusrite used for?',
      link: 'https://www.thepodcasthost.com/equipment/focusrite-scarlett-2i2-review/',
    })
    expect(p.related_searches?.map((r) => r.query)).toEqual([
      'Focusrite interface',
      'Best audio interface for Garageband 2020',
      'Focusrite Saffire',
      'Best audio interface under $500',
    ])
  })

  it('aql-laxmikant-pyarelal: dates split from snippets', () => {
    const p = page('web-basic/aql-laxmikant-pyarelal.html')
    expect(p.results).toHaveLength(10)
    expect(p.results.filter((r) => r.date).map((r) => r.date)).toEqual(['Nov 16, 2021', 'Jan 29, 2021', 'Nov 2, 2021', 'May 24, 2022', 'May 21, 2022'])
  })

  it('aql-lope-recio-loynaz-es and aql-taikoo-hui-hotel-ru: Spanish and Russian pages', () => {
    const es = page('web-basic/aql-lope-recio-loynaz-es.html')
    expect(es.results).toHaveLength(9)
    expect(es.results[0]).toMatchObject({ title: 'Lope Recio Loynaz - EcuRed', link: 'https://www.ecured.cu/Lope_Recio_Loynaz' })
    const ru = page('web-basic/aql-taikoo-hui-hotel-ru.html')
    expect(ru.results).toHaveLength(10)
    expect(ru.related_searches).toEqual([{ query: 'Taikoo Hui Tower 1 no 383 Tianhe Road Guangzhou 510620' }])
  })
})

describe('every web fixture', () => {
  const all = ['web-desktop/', 'web-desktop/old-2020/', 'web-mobile/', 'web-nojs/', 'web-basic/'].flatMap((dir) =>
    listFixtures(`serp/google/${dir}`)
      .filter((f) => f.endsWith('.html') && f !== 'zlurad-recaptcha.html')
      .map((f) => `${dir}${f}`),
  )

  it('fills title, link, domain and displayed_link on every result, and a snippet on nearly all', () => {
    let total = 0
    let withSnippet = 0
    for (const path of all) {
      const p = page(path)
      p.results.forEach((r, i) => {
        total++
        if (r.snippet) withSnippet++
        expect({ path, i, ok: r.position === i + 1 && !!r.title && !!r.domain && !!r.displayed_link }).toEqual({ path, i, ok: true })
        expect({ path, link: r.link, ok: /^https?:\/\//.test(r.link) && !isGoogleInternal(r.link) }).toMatchObject({ ok: true })
      })
      const empty = /no-results/.test(path)
      expect({ path, quality: p.parse_quality }).toEqual({ path, quality: empty ? 'empty' : 'ok' })
    }
    expect(total).toBe(756)
    // The one without: a page Google shows no description for ("Redirecting... - Google").
    expect(withSnippet).toBe(755)
  })

  it('reads the same organic results with every class attribute removed (structure, not class names)', () => {
    for (const path of all) {
      const html = read(path)
      const links = (p: ParsedSearchPage) => p.results.map((r) => [r.link, !!r.displayed_link, !!r.snippet])
      expect({ path, results: links(parseGoogleSearch(html.replace(/\sclass="[^"]*"/g, ''))) }).toEqual({
        path,
        results: links(parseGoogleSearch(html)),
      })
    }
  })
})
