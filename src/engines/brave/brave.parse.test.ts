import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import type { ParsedSearchPage } from '../engine.types.ts'
import { detectBraveApiBlock, detectBraveBlock } from './brave.block.ts'
import { braveKitData, parseBraveSearch } from './brave.parse.ts'
import { parseBraveHtml } from './brave-html.parse.ts'

const read = (name: string) => readFixture(`serp/brave/web/${name}`).toString('utf8')
const cache = new Map<string, ParsedSearchPage>()
function page(name: string): ParsedSearchPage {
  let p = cache.get(name)
  if (!p) {
    p = parseBraveSearch(read(name))
    cache.set(name, p)
  }
  return p
}

// Every real capture (the constructed API JSON is tested in brave-api.test.ts).
const CAPTURES = listFixtures('serp/brave', true)
  .filter((f) => f.endsWith('.html'))
  .map((f) => f.replace(/^web\//, ''))

// Per capture: results read, and the first result as the page shows it.
const EXPECTED: Record<string, { count: number; first: { title: string; link: string } }> = {
  'aql-copyq.html': { count: 15, first: { title: 'CopyQ', link: 'https://hluk.github.io/CopyQ/' } },
  'aql-greentext.html': { count: 20, first: { title: 'Greentext Stories | Know Your Meme', link: 'https://knowyourmeme.com/memes/greentext-stories' } },
  'aql-h-m-home.html': { count: 20, first: { title: 'Home décor | Furniture, Bedding & decorations | H&M US', link: 'https://www2.hm.com/en_us/home.html' } },
  'aql-nair.html': {
    count: 20,
    first: { title: '#1 Hair Removal Cream, Wax & Depilatory Brand for Every Body | Nair™', link: 'https://www.naircare.com/en' },
  },
  'aql-openoffice.html': {
    count: 17,
    first: { title: 'Apache OpenOffice - Official Site - The Free and Open Productivity ...', link: 'http://www.openoffice.org/' },
  },
  'aql-terraform-github-container.html': {
    count: 20,
    first: {
      title: 'GitHub - avinor/terraform-azurerm-container-registry: Terraform ...',
      link: 'https://github.com/avinor/terraform-azurerm-container-registry',
    },
  },
  'wsmcp-javascript-tutorial-2026.html': { count: 20, first: { title: 'JavaScript Tutorial', link: 'https://www.w3schools.com/js/' } },
}

describe('parseBraveSearch: every capture', () => {
  it('has an expectation for each capture', () => {
    expect(CAPTURES.sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  for (const name of CAPTURES) {
    it(`${name}: reads every web result with title, link and domain`, () => {
      const p = page(name)
      const want = EXPECTED[name]
      expect(p.parse_quality).toBe('ok')
      expect(p.results).toHaveLength(want?.count ?? -1)
      expect(p.results[0]).toMatchObject({ position: 1, ...want?.first })
      expect(p.results.map((r) => r.position)).toEqual(p.results.map((_, i) => i + 1))
      for (const r of p.results) {
        expect(r.title.trim()).toBe(r.title)
        expect(r.title).not.toMatch(/\s{2}|&amp;|&#/)
        expect(r.link).toMatch(/^https?:\/\//)
        expect(new URL(r.link).hostname).not.toMatch(/(^|\.)brave\.com$/)
        expect(r.domain).toBe(new URL(r.link).hostname.replace(/^www\./, ''))
        expect(r.snippet ?? '').not.toMatch(/\s{2}|<strong>/)
      }
    })

    it(`${name}: is not a block page`, () => {
      expect(detectBraveBlock({ status: 200, url: 'https://search.brave.com/search?q=x', body: read(name) })).toBeNull()
    })
  }
})

describe('2022 server-rendered pages', () => {
  it('splits the date off the description and reads the displayed link', () => {
    expect(page('aql-copyq.html').results[1]).toEqual({
      position: 2,
      title: 'CopyQ download | SourceForge.net',
      link: 'https://sourceforge.net/projects/copyq/',
      domain: 'sourceforge.net',
      displayed_link: 'sourceforge.net › projects › copyq',
      snippet:
        'Download CopyQ for free. Clipboard manager with advanced features. CopyQ is advanced clipboard manager with searchable and editable history with support for image formats, command line control and more.',
      date: '3 weeks ago',
    })
    expect(page('aql-h-m-home.html').results[19]).toMatchObject({ link: 'https://www.pinterest.com/hm/hm-home/', date: 'Jun 16, 2019' })
  })

  it('reads a result cluster as the sitelinks of the result above it, not as results', () => {
    expect(page('aql-nair.html').results[0]?.sitelinks).toEqual([
      { title: "MEN'S NAIR™", link: 'https://www.naircare.com/en/men' },
      { title: 'Faqs', link: 'https://www.naircare.com/en/faqs' },
      { title: 'Products', link: 'https://www.naircare.com/en/products' },
      { title: 'How Nair™ Works', link: 'https://www.naircare.com/en/how-nair-hair-remover-works' },
    ])
    expect(page('aql-openoffice.html').results[0]?.sitelinks).toHaveLength(4)
    expect(page('aql-nair.html').results[1]?.link).toBe('https://www.amazon.com/Nair-Remover-Butter-Removal-Lotion/dp/B001G7PTWU')
  })

  it('reads video results (date from "Published:") and product results (description)', () => {
    expect(page('aql-greentext.html').results[3]).toMatchObject({
      title: '4Chan Greentext AI Generated Adventure - YouTube',
      link: 'https://www.youtube.com/watch?v=oh3kqzQVdug',
      date: 'June 24, 2022',
    })
    expect(page('aql-greentext.html').results[3]?.snippet).toMatch(/^visit https:\/\/beta\.openai\.com\/playground/)
    expect(page('aql-nair.html').results[6]).toMatchObject({
      link: 'https://www.riteaid.com/shop/nair-care-nair-men-hair-removal-body-cream-13oz-0354186',
    })
    expect(page('aql-nair.html').results[6]?.snippet).toMatch(/^Get smooth skin on your chest/)
  })

  it('has no page data, so the markup is the source', () => {
    expect(braveKitData(read('aql-copyq.html'))).toBeUndefined()
  })
})

describe('2026 SvelteKit page', () => {
  const name = 'wsmcp-javascript-tutorial-2026.html'

  it('reads the results from the kit.start data, with dates and sitelinks', () => {
    const p = page(name)
    expect(p.results[0]).toEqual({
      position: 1,
      title: 'JavaScript Tutorial',
      link: 'https://www.w3schools.com/js/',
      domain: 'w3schools.com',
      displayed_link: 'w3schools.com › js',
      snippet: 'JavaScript is easy to learn. This tutorial covers everything from basic JavaScript up to the latest 2026 version.',
      sitelinks: [
        { title: 'Learn CSS', link: 'https://www.w3schools.com/css/default.asp' },
        { title: 'Learn HTML', link: 'https://www.w3schools.com/html/default.asp' },
        { title: 'Spaces', link: 'https://www.w3schools.com/spaces/index.php' },
        { title: 'Reference', link: 'https://www.w3schools.com/tags/default.asp' },
      ],
    })
    expect(p.results[2]).toMatchObject({ link: 'https://www.javascripttutorial.net/', date: 'December 13, 2024' })
    expect(p.results[19]).toMatchObject({ link: 'https://www.simplilearn.com/tutorials/javascript-tutorial', date: 'December 1, 2025' })
    // Entities and <strong> in the data come out as text.
    expect(p.results.find((r) => r.link === 'https://www.learn-js.org/')?.snippet).toMatch(/^learn-js\.org is a free interactive/)
    expect(p.results.find((r) => r.link === 'https://www.codecademy.com/learn/introduction-to-javascript')?.snippet).toMatch(/we're going to practice/)
  })

  it('reads FAQ as people also ask, related queries and the infobox', () => {
    const p = page(name)
    expect(p.people_also_ask).toHaveLength(7)
    expect(p.people_also_ask?.[0]).toMatchObject({ question: 'What is JavaScript?', link: 'https://www.codecademy.com/learn/introduction-to-javascript' })
    expect(p.related_searches?.map((r) => r.query)).toEqual([
      'javascript tutorialspoint',
      'javascript tutorial video',
      'javascript tutorial free',
      'javascript tutorial pdf',
      'javascript tutorial youtube',
      'javascript tutorial geeksforgeeks',
      'javascript tutorial for beginners',
      'javascript tutorial freecodecamp',
      'javascript download',
      'javascript tutorial app',
    ])
    expect(p.knowledge_graph).toMatchObject({
      title: 'W3Schools',
      type: 'Web development information website',
      source: { name: 'Wikipedia', link: 'https://en.wikipedia.org/wiki/W3Schools' },
      website: 'https://www.w3schools.com/',
    })
    expect(p.knowledge_graph?.attributes?.Registration).toBe('Required for forum')
  })

  it('reads the same results from the markup alone (page data missing)', () => {
    const html = read(name)
    const withoutData = html.replace('kit.start(', 'kit.startX(')
    expect(braveKitData(withoutData)).toBeUndefined()
    const fromHtml = parseBraveSearch(withoutData)
    expect(fromHtml.parse_quality).toBe('ok')
    expect(fromHtml.results.map((r) => r.link)).toEqual(page(name).results.map((r) => r.link))
    expect(fromHtml.results.map((r) => r.title)).toEqual(page(name).results.map((r) => r.title))
    expect(fromHtml.results[0]?.sitelinks).toHaveLength(4)
    expect(fromHtml.results[2]).toMatchObject({ date: 'December 13, 2024', displayed_link: 'javascripttutorial.net › home' })
    expect(fromHtml.results[4]).toMatchObject({ link: 'https://www.geeksforgeeks.org/javascript/javascript-tutorial/', date: '3 weeks ago' })
  })

  it('falls back to the markup when the data holds no web results', () => {
    const html = read(name).replace(/(web: \{\s*type: 'search',\s*choice: void 0,\s*)results:/, '$1renamed:')
    expect(braveKitData(html)?.response.web).toMatchObject({ type: 'search', renamed: expect.any(Array) })
    const p = parseBraveSearch(html)
    expect(p.results).toHaveLength(20)
    expect(p.people_also_ask).toHaveLength(7)
  })
})

describe('parse_quality', () => {
  it('is empty for a page saying there are no results, partial for unknown markup', () => {
    expect(parseBraveHtml('<html><body><div id="results"><p>No results found for "zzqx".</p></div></body></html>')).toEqual({
      results: [],
      parse_quality: 'empty',
      saysNoResults: true,
    })
    expect(parseBraveSearch('<html><body><main><a href="https://example.com/">x</a></main></body></html>').parse_quality).toBe('partial')
    const unreadable = '<div id="results"><div class="snippet" data-type="web"><a href="/settings">no title</a></div></div>'
    expect(parseBraveHtml(unreadable)).toEqual({ results: [], parse_quality: 'partial' })
  })

  it('is empty when the page data says noResults', () => {
    const html = `<script>kit.start(app, element, { data: [{ type: 'data', data: {} }, { type: 'data', data: { body: { response: { type: 'search', query: { original: 'zzqx' } } }, noResults: true } }] })</script>`
    expect(parseBraveSearch(html)).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
  })
})

describe('detectBraveBlock', () => {
  const ok = { status: 200, url: 'https://search.brave.com/search?q=x' }

  it('recognises the captcha redirect, 429 and Cloudflare', () => {
    expect(detectBraveBlock({ status: 302, url: 'https://search.brave.com/captcha?redirect=%2Fsearch', body: '' })).not.toBeNull()
    expect(detectBraveBlock({ status: 200, url: 'https://search.brave.com/captcha/slider?x=1', body: '' })).not.toBeNull()
    expect(detectBraveBlock({ status: 200, url: 'https://search.brave.com/verify?q=x', body: '' })).not.toBeNull()
    expect(detectBraveBlock({ ...ok, status: 429, body: '' })).not.toBeNull()
    expect(
      detectBraveBlock({
        ...ok,
        status: 403,
        body: '<html><title>Just a moment...</title><script src="/cdn-cgi/challenge-platform/h/b/orchestrate"></script>',
      }),
    ).not.toBeNull()
    expect(
      detectBraveBlock({ ...ok, status: 503, body: '<html><head><title>Brave</title></head><body><div id="cf-chl-widget"></div></body></html>' }),
    ).not.toBeNull()
  })

  it('recognises the captcha page served in place of results', () => {
    expect(detectBraveBlock({ ...ok, body: '<html><head><title>Verify you are human - Brave Search</title></head><body></body></html>' })).not.toBeNull()
    expect(detectBraveBlock({ ...ok, body: '<div class="captcha-card"><div class="captcha-slider"></div></div>' })).not.toBeNull()
    expect(detectBraveBlock({ ...ok, body: '<script>kit.start(app, element, { data: [{ data: { page: "captcha" } }] })</script>' })).not.toBeNull()
  })

  it('does not read a result page as a block, even one about captchas or "just a moment"', () => {
    const results =
      '<title>Just a moment... - Brave Search</title><div id="results"><div class="snippet" data-type="web"><a href="https://captcha.example/">Verify you are human</a></div></div>'
    expect(detectBraveBlock({ ...ok, body: results })).toBeNull()
    expect(detectBraveBlock({ status: 200, url: 'https://example.com/captcha', body: '' })).toBeNull()
    expect(detectBraveBlock({ ...ok, status: 404, body: 'Not found' })).toBeNull()
  })

  it('the API detector blocks on 429 only: 401 / 422 are bad keys or parameters, not blocks', () => {
    const api = 'https://api.search.brave.com/res/v1/web/search?q=x'
    expect(detectBraveApiBlock({ status: 429, url: api, body: '{}' })).not.toBeNull()
    expect(detectBraveApiBlock({ status: 401, url: api, body: '{"type":"ErrorResponse"}' })).toBeNull()
    expect(detectBraveApiBlock({ status: 422, url: api, body: '{"type":"ErrorResponse"}' })).toBeNull()
    expect(detectBraveApiBlock({ status: 200, url: api, body: '{"type":"search"}' })).toBeNull()
  })
})
