import { describe, expect, it } from 'vitest'
import { readFixture } from '../../../../../test/support/fixtures.ts'
import type { ParsedSearchPage } from '../../search.types.ts'
import { parseGoogleSearch } from './google-search.parse.ts'

const page = (file: string, includeAds = false): ParsedSearchPage =>
  parseGoogleSearch(readFixture(`serp/google/web-mobile/${file}`).toString('utf8'), { includeAds })
const links = (p: ParsedSearchPage) => p.results.map((r) => r.link)

describe('mobile layout', () => {
  it('zlurad-google: role=heading titles, role=text breadcrumbs, no app card', () => {
    const p = page('zlurad-google.html')
    expect(p.parse_quality).toBe('ok')
    expect(p.results).toHaveLength(3)
    expect(p.results[0]).toEqual({
      position: 1,
      title: 'Google',
      link: 'https://google.com/',
      domain: 'google.com',
      displayed_link: 'https://google.com',
      snippet:
        "Search the world's information, including webpages, images, videos and more. Google has many special features to help you find exactly what you're looking for.",
      sitelinks: [
        { title: 'Drive', link: 'https://www.google.com/drive/' },
        { title: 'Photos', link: 'https://www.google.com/photos/about/' },
        { title: 'Connect a device', link: 'https://www.google.com/device' },
        { title: 'Google Earth', link: 'https://earth.google.com/' },
        { title: 'Google Play', link: 'https://play.google.com/' },
        { title: 'Google Takeout', link: 'https://takeout.google.com/' },
        { title: 'Google Fonts', link: 'https://fonts.google.com/' },
      ],
    })
    expect(p.results[2]).toMatchObject({ title: 'Google Account', displayed_link: 'https://www.google.com › about' })
    expect(links(p).some((l) => l.includes('play.google.com/store/apps'))).toBe(false)
    expect(p.people_also_ask?.map((q) => q.question)).toEqual([
      'What does Google stand for?',
      'How to check Google Account password?',
      'How do I reverse image search?',
      'How do I open a Google Drive link with another account?',
    ])
  })

  it('zlurad-google-100: 98 results and the knowledge panel', () => {
    const p = page('zlurad-google-100.html')
    expect(p.results).toHaveLength(98)
    expect(new Set(links(p)).size).toBe(98)
    expect(p.knowledge_graph).toMatchObject({ title: 'Google', type: 'Technology company', website: 'http://www.google.com/' })
    expect(p.knowledge_graph?.attributes?.CEO).toBe('Sundar Pichai (Oct 2, 2015–)')
  })

  it('zlurad-coffee: local pack, recipes kept out, visual-digest knowledge panel', () => {
    const p = page('zlurad-coffee.html')
    expect(p.results).toHaveLength(95)
    expect(p.results[0]).toMatchObject({
      title: 'Coffee',
      link: 'https://en.m.wikipedia.org/wiki/Coffee',
      domain: 'en.m.wikipedia.org',
      displayed_link: 'https://en.m.wikipedia.org › wiki',
    })
    expect(links(p)).not.toContain('https://www.kingarthurbaking.com/recipes/crumb-lovers-coffee-cake-recipe')
    expect(p.places?.map((x) => [x.title, x.cid, x.rating, x.rating_count, x.type, x.address])).toEqual([
      ['Javalencia', '13402524816713482455', 4.4, 71, 'Coffee shop', '1594 Market St'],
      ['Blue Bottle Coffee', '6594796727466431486', 4.1, 30, 'Coffee shop', '55 S Van Ness Ave'],
      ['Planet Cafe', '11224414937223836549', 4.7, 45, 'Coffee shop', '244 Gough St'],
    ])
    expect(p.knowledge_graph).toMatchObject({ title: 'Coffee', type: 'Beverage', source: { name: 'Wikipedia', link: 'https://en.wikipedia.org/wiki/Coffee' } })
    expect(p.knowledge_graph?.description).toMatch(/^Coffee is a beverage prepared from roasted coffee beans\..*hot drinks\.$/)
  })

  it('zlurad-domain: three results, ads above and below', () => {
    const p = page('zlurad-domain.html', true)
    expect(links(p)).toEqual(['https://www.domain.com/', 'https://en.m.wikipedia.org/wiki/Domain_name', 'https://en.m.wikipedia.org/wiki/Domain_(biology)'])
    expect(p.ads?.map((a) => [a.block, a.position, a.title])).toEqual([
      ['top', 1, 'Buy .com Domain Names - .com Domains From $2.99'],
      ['top', 2, 'Google Domains - Official Site - Security Is Built In'],
      ['top', 3, 'Domain Names » Register Your TLD » Starting at $1'],
      ['bottom', 1, 'Hostinger - Domain Names - Free Domain With Hosting Plans'],
    ])
    expect(p.ads?.[0]).toMatchObject({ link: 'https://www.godaddy.com/', domain: 'godaddy.com', displayed_link: 'https://www.godaddy.com' })
    expect(p.knowledge_graph?.title).toBe('Domain name')
    expect(p.places).toBeUndefined()
  })

  it('zlurad-featured-snippet: answer box, not an organic result', () => {
    const p = page('zlurad-featured-snippet.html')
    expect(p.answer_box).toMatchObject({
      type: 'featured_snippet',
      title: 'Featured Snippets and Your Website | Google Search Central',
      link: 'https://developers.google.com/search/docs/appearance/featured-snippets',
    })
    expect(p.results).toHaveLength(9)
    expect(links(p)).not.toContain('https://developers.google.com/search/docs/appearance/featured-snippets')
    expect(p.results[0]).toMatchObject({ title: "How Google's featured snippets work", domain: 'support.google.com' })
  })

  it('zlurad-hotels: a result with a list instead of a snippet', () => {
    const p = page('zlurad-hotels.html', true)
    expect(p.results).toHaveLength(4)
    expect(p.results[0]).toMatchObject({
      title: 'Best New York Hotels',
      link: 'https://www.hotels.com/de1506246/hotels-new-york-new-york/',
      displayed_link: 'https://www.hotels.com › hotels-ne...',
    })
    expect(p.results[0]?.snippet).toMatch(/^Paramount Times Square · Pod Times Square · Radio Hotel/)
    expect(p.ads?.map((a) => a.domain)).toEqual(['booking.com', 'hotels.com'])
    // The refinement chips at the top ("hotels nyc budget") are not related searches.
    expect(p.related_searches).toBeUndefined()
  })

  it('zlurad-_com-domains and zlurad-no-results', () => {
    const p = page('zlurad-_com-domains.html')
    expect(p.results).toHaveLength(10)
    expect(p.results[0]).toMatchObject({ link: 'https://www.godaddy.com/tlds/com-domain', displayed_link: 'https://www.godaddy.com › Tlds' })
    expect(p.people_also_ask?.[0]).toEqual({ question: 'How do I get a .com domain?' })
    expect(page('zlurad-no-results.html')).toEqual({ results: [], parse_quality: 'empty' })
  })
})
