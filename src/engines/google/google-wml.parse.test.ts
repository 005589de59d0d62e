import { describe, expect, it } from 'vitest'
import { readFixture } from '../../../test/support/fixtures.ts'
import { parseGoogleWml, readGoogleWml, stripPrologue, wmlTarget } from './google-wml.parse.ts'

// Constructed from the documented markup, not captured (see the README beside it).
const PAGE = readFixture('serp/google/web-wml/constructed-coffee.html').toString('utf8')

describe('the feature-phone page (/wml/search)', () => {
  const { page, layout } = readGoogleWml(PAGE)

  it('reads its 10 results in order, with title, link, address line, snippet and date', () => {
    expect(layout).toBe('wml')
    expect(page.parse_quality).toBe('ok')
    expect(page.results.map((r) => [r.position, r.link])).toEqual([
      [1, 'https://en.wikipedia.org/wiki/Coffee'],
      [2, 'https://www.hsph.harvard.edu/nutritionsource/food-features/coffee/'],
      [3, 'https://www.ncausa.org/About-Coffee?ref=google&lang=en'],
      [4, 'https://www.starbucks.com/'],
      [5, 'https://www.healthline.com/nutrition/top-evidence-based-health-benefits-of-coffee'],
      [6, 'https://www.britannica.com/topic/coffee'],
      [7, 'https://www.coffeebean.com/'],
      [8, 'https://www.medicalnewstoday.com/articles/270202'],
      [9, 'https://www.peets.com/'],
      [10, 'https://www.reddit.com/r/Coffee/'],
    ])
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Coffee - Wikipedia',
      link: 'https://en.wikipedia.org/wiki/Coffee',
      domain: 'en.wikipedia.org',
      displayed_link: 'en.wikipedia.org › wiki › Coffee',
      snippet:
        'Coffee is a beverage brewed from roasted, ground coffee beans. Darkly colored, bitter, and slightly acidic, coffee has a stimulating effect on humans, primarily due to its caffeine content.',
    })
    expect(page.results[4]).toMatchObject({ date: 'Jan 17, 2024', snippet: expect.stringMatching(/^Coffee is packed with antioxidants/) })
  })

  it('decodes HTML entities in titles and snippets', () => {
    expect(page.results[1]?.title).toBe("Coffee & Health: What's the Evidence? | The Nutrition Source")
    expect(page.results[1]?.snippet).toBe(
      'Moderate coffee intake – about 2–5 cups a day – is linked to a lower likelihood of type 2 diabetes, heart disease and "all-cause" mortality…',
    )
    expect(page.results[8]?.title).toBe("Peet's Coffee | The Original Craft Coffee")
    expect(page.results[6]?.title).toBe('The Coffee Bean & Tea Leaf')
  })

  it('a result without a snippet is kept without one', () => {
    expect(page.results[3]).toEqual({
      position: 4,
      title: 'Starbucks Coffee Company',
      link: 'https://www.starbucks.com/',
      domain: 'starbucks.com',
      displayed_link: 'www.starbucks.com',
    })
  })

  it("skips Google's own links (the image strip, a redirect to a search page) and a second link to a result", () => {
    const titles = page.results.map((r) => r.title)
    expect(titles).not.toContain('Images for coffee')
    expect(titles).not.toContain('Coffee shops near me')
    expect(page.results.filter((r) => r.link === 'https://en.wikipedia.org/wiki/Coffee')).toHaveLength(1)
    for (const r of page.results) expect(new URL(r.link).hostname).not.toMatch(/google|gstatic/)
  })

  it('reads the related searches from the suggestion table', () => {
    expect(page.related_searches).toEqual(
      ['coffee near me', 'coffee shops', 'coffee beans', 'coffee benefits', 'coffee types', 'coffee & tea', 'coffee maker', 'coffee history'].map((query) => ({
        query,
      })),
    )
  })

  it('the same page without its <?xml ?> prologue reads the same', () => {
    expect(PAGE.startsWith('<?xml')).toBe(true)
    expect(stripPrologue(PAGE).trimStart().startsWith('<!DOCTYPE')).toBe(true)
    expect(readGoogleWml(stripPrologue(PAGE))).toEqual({ page, layout })
  })

  it('with its class names gone, the web readers still read its results, as partial', () => {
    const renamed = PAGE.replace(/\sclass="[^"]*"/g, '')
    expect(parseGoogleWml(renamed).recognised).toBe(false)
    const read = readGoogleWml(renamed)
    expect(read.page.results.map((r) => r.link)).toEqual(page.results.map((r) => r.link))
    expect(read.page.parse_quality).toBe('partial')
  })

  it('with only its title class renamed, it is still never "no results"', () => {
    const renamed = readGoogleWml(PAGE.replace(/CVA68e/g, 'Xy12ab'))
    expect(renamed.layout).toBe('wml')
    expect(renamed.page.parse_quality).toBe('partial')
    expect(renamed.page.results.map((r) => r.link)).toEqual(page.results.map((r) => r.link))
  })

  it('a recognised page without results is empty; a page it cannot place is left to the caller as unknown', () => {
    const none = `<?xml version="1.0" encoding="UTF-8"?><html><body><form action="/wml/search"><input name="q" value="zqxv"/></form><div>Your search - <b>zqxv</b> - did not match any documents.</div></body></html>`
    expect(readGoogleWml(none)).toEqual({ page: { results: [], parse_quality: 'empty', saysNoResults: true }, layout: 'wml' })
    expect(readGoogleWml('<html><body><p>Something went wrong.</p></body></html>').layout).toBe('unknown')
  })
})

describe('wmlTarget', () => {
  it('unwraps /url?q= links: prefix stripped, cut at &sa=U, URL-decoded', () => {
    expect(wmlTarget('/url?q=https://example.com/a%3Fb%3D1%26c%3D2&sa=U&ved=x&usg=y')).toBe('https://example.com/a?b=1&c=2')
    expect(wmlTarget('/url?q=https://example.com/caf%C3%A9&sa=U')).toBe('https://example.com/caf%C3%A9')
    expect(wmlTarget('https://example.com/direct')).toBe('https://example.com/direct')
  })

  it("tells Google's own pages from unreadable links", () => {
    expect(wmlTarget('/search?q=coffee&tbm=isch')).toBe('internal')
    expect(wmlTarget('/url?q=https://www.google.com/search%3Fq%3Dx&sa=U')).toBe('internal')
    expect(wmlTarget('/url?q=javascript:alert(1)&sa=U')).toBeUndefined()
    expect(wmlTarget('/url?q=%E0%A4%A&sa=U')).toBeUndefined()
    expect(wmlTarget(undefined)).toBeUndefined()
  })
})
