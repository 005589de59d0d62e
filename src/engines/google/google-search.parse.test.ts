import { describe, expect, it } from 'vitest'
import { fixture } from '../../../test/support/fake-upstream.ts'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import type { ParsedSearchPage } from '../engine.types.ts'
import { loadCheerio } from '../parse/cheerio-load.ts'
import { parseGoogleSearch } from './google-search.parse.ts'

const read = (path: string) => readFixture(`serp/google/${path}`).toString('utf8')
const cache = new Map<string, ParsedSearchPage>()
function page(path: string, includeAds = false): ParsedSearchPage {
  const key = `${path}|${includeAds}`
  let parsed = cache.get(key)
  if (!parsed) {
    parsed = parseGoogleSearch(read(path), { includeAds })
    cache.set(key, parsed)
  }
  return parsed
}
const links = (p: ParsedSearchPage) => p.results.map((r) => r.link)

describe('desktop: zlurad-google (query "google")', () => {
  const p = () => page('web-desktop/zlurad-google.html')

  it('parses the 9 organic results with every field', () => {
    expect(p().results).toHaveLength(9)
    expect(p().parse_quality).toBe('ok')
    expect(p().results[0]).toEqual({
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
      ],
    })
    expect(p().results[2]).toMatchObject({
      position: 3,
      title: 'Google Account',
      link: 'https://www.google.com/account/about/',
      displayed_link: 'https://www.google.com › account › about',
      snippet: 'In your Google Account, you can see and manage your info, activity, ...',
    })
    expect(p().results[8]).toMatchObject({ position: 9, link: 'https://images.google.com/', domain: 'images.google.com' })
  })

  it('reads people also ask, related searches and the result count', () => {
    expect(p().people_also_ask).toEqual([
      { question: 'What does Google stand for?' },
      { question: 'How to check Google Account password?' },
      { question: 'How do I reverse image search?' },
      { question: 'How do I open a Google Drive link with another account?' },
    ])
    expect(p().related_searches?.map((r) => r.query)).toEqual([
      'google map',
      'google account',
      'www.google search web',
      'google earth',
      'google mail',
      'google play',
      'google chrome',
      'google sign in',
    ])
    expect(p().total_results).toBe(25_150_000_000)
  })

  it('reads the knowledge panel', () => {
    expect(p().knowledge_graph).toMatchObject({
      title: 'Google',
      type: 'Technology company',
      website: 'http://www.google.com/',
      source: { name: 'Wikipedia', link: 'https://en.wikipedia.org/wiki/Google' },
    })
    expect(p().knowledge_graph?.description).toMatch(/^Google LLC is an American multinational technology company/)
    expect(p().knowledge_graph?.attributes).toMatchObject({
      Founders: 'Larry Page, Sergey Brin',
      'Parent organization': 'Alphabet Inc.',
      Headquarters: 'Mountain View, CA',
    })
  })

  it('reads top stories and keeps them out of the organic results', () => {
    const stories = p().top_stories ?? []
    expect(stories).toHaveLength(7)
    expect(stories[0]).toEqual({
      title: 'Google Nest speakers will now chime instead of talk when controlling smart home devices',
      link: 'https://www.theverge.com/2023/4/21/23692794/google-nest-smart-speaker-new-chime-feature',
      source: 'The Verge',
      date: '26 mins ago',
    })
    for (const s of stories) expect(links(p())).not.toContain(s.link)
  })
})

describe('desktop: zlurad-google-100 (num=100)', () => {
  it('parses about 100 results, numbered in page order without duplicates', () => {
    const p = page('web-desktop/zlurad-google-100.html')
    expect(p.results).toHaveLength(99)
    expect(p.results.map((r) => r.position)).toEqual(Array.from({ length: 99 }, (_, i) => i + 1))
    expect(new Set(links(p)).size).toBe(99)
    expect(p.results[3]).toMatchObject({ title: 'Google Maps', link: 'https://www.google.com/maps' })
    // Absolute links to Google's own pages are results for this query; UI links are not.
    expect(links(p)).toContain('https://www.google.com/search/about/')
    expect(links(p).some((l) => /google\.com\/search\?/.test(l))).toBe(false)
    expect(p.total_results).toBe(25_040_000_000)
  })
})

describe('desktop: zlurad-coffee (local pack, recipes, clustered results)', () => {
  const p = () => page('web-desktop/zlurad-coffee.html')

  it('parses 95 organic results and keeps recipes out', () => {
    expect(p().results).toHaveLength(95)
    expect(p().results[0]).toMatchObject({ title: 'Coffee', link: 'https://en.wikipedia.org/wiki/Coffee', domain: 'en.wikipedia.org' })
    expect(links(p())).not.toContain('https://www.bbcgoodfood.com/recipes/collection/coffee-recipes')
    expect(links(p())).not.toContain('https://www.kingarthurbaking.com/recipes/crumb-lovers-coffee-cake-recipe')
  })

  it('splits a date printed before the snippet into its own field', () => {
    const r = p().results.find((x) => x.title === '31 Coffee Brands, Ranked From Worst To Best')
    expect(r?.date).toBe('Mar 2, 2023')
    expect(r?.snippet).toMatch(/^From café chains to retail roasters, we've ranked some of the most popular coffee brands/)
  })

  it('lists indented results of a site cluster as their own results', () => {
    const i = links(p()).indexOf('https://www.starbucks.com/')
    expect(links(p()).slice(i, i + 3)).toEqual([
      'https://www.starbucks.com/',
      'https://www.starbucks.com/coffee/',
      'https://www.starbucks.com/menu/drinks/cold-coffees',
    ])
  })

  it('reads the local pack', () => {
    expect(p().places).toEqual([
      { position: 1, title: 'Javalencia', cid: '13402524816713482455', rating: 4.4, rating_count: 71, type: 'Coffee shop', address: '1594 Market St' },
      {
        position: 2,
        title: 'Blue Bottle Coffee',
        cid: '6594796727466431486',
        rating: 4.1,
        rating_count: 30,
        type: 'Coffee shop',
        address: '55 S Van Ness Ave',
      },
      { position: 3, title: 'Planet Cafe', cid: '11224414937223836549', rating: 4.7, rating_count: 45, type: 'Coffee shop', address: '244 Gough St' },
    ])
  })

  it('reads the knowledge panel and related searches', () => {
    expect(p().knowledge_graph).toMatchObject({ title: 'Coffee', type: 'Beverage', source: { name: 'Wikipedia' } })
    expect(p().related_searches?.[0]).toEqual({ query: 'coffee near me' })
    expect(p().people_also_ask?.map((q) => q.question)).toEqual([
      'Is coffee good for health?',
      'How coffee affects the body?',
      'What are the 4 types of coffee?',
      'Which coffee brand is best?',
    ])
  })
})

describe('desktop: zlurad-featured-snippet', () => {
  it('reads the featured snippet into answer_box and not into the results', () => {
    const p = page('web-desktop/zlurad-featured-snippet.html')
    expect(p.answer_box).toMatchObject({
      type: 'featured_snippet',
      title: 'Featured Snippets and Your Website | Google Search Central',
      link: 'https://developers.google.com/search/docs/appearance/featured-snippets',
      domain: 'developers.google.com',
      answer: 'special boxes where the format of a regular search result is reversed, showing the descriptive snippet first',
    })
    expect(p.answer_box?.snippet).toMatch(/^Featured snippets are special boxes where the format of a regular search result/)
    expect(p.results).toHaveLength(9)
    expect(links(p)).not.toContain('https://developers.google.com/search/docs/appearance/featured-snippets')
    expect(p.results[0]).toMatchObject({
      title: 'What Are Featured Snippets? And How to Get Them',
      link: 'https://backlinko.com/hub/seo/featured-snippets',
      displayed_link: 'https://backlinko.com › hub › seo › featured-snippets',
    })
  })
})

describe('desktop: zlurad-matrix (videos, top stories, entity carousels)', () => {
  const p = () => page('web-desktop/zlurad-matrix.html')
  it('keeps trailers and news out of the 8 organic results', () => {
    expect(p().results).toHaveLength(8)
    expect(p().results[0]).toMatchObject({ title: 'The Matrix (1999)', link: 'https://www.imdb.com/title/tt0133093/' })
    expect(p().results[0]?.sitelinks?.[0]).toEqual({ title: 'Full Cast & Crew', link: 'https://www.imdb.com/title/tt0133093/fullcredits' })
    expect(links(p()).some((l) => l.includes('youtube.com/watch'))).toBe(false)
    expect(p().top_stories?.map((s) => s.link)).toHaveLength(4)
    expect(p().top_stories?.[0]?.title).toBe('Keanu Reeves Celebrated The Toughest Matrix Scene In The Most Unexpected Way')
  })
  it('reads the knowledge panel and related searches', () => {
    expect(p().knowledge_graph).toMatchObject({ title: 'The Matrix', type: 'Film franchise' })
    expect(p().knowledge_graph?.attributes?.['Created by']).toBe('The Wachowskis')
    expect(p().related_searches?.[0]).toEqual({ query: 'what is the matrix in real life' })
  })
})

describe('desktop: ads (zlurad-hotels, zlurad-_com-domains)', () => {
  it('returns ads only when asked, with their block', () => {
    expect(page('web-desktop/zlurad-hotels.html').ads).toBeUndefined()
    const ads = page('web-desktop/zlurad-hotels.html', true).ads ?? []
    expect(ads).toHaveLength(2)
    expect(ads[0]).toMatchObject({
      position: 1,
      block: 'top',
      title: 'Hotels in New York, NY - Booking.com',
      link: 'http://www.booking.com/',
      domain: 'booking.com',
    })
    const com = page('web-desktop/zlurad-_com-domains.html', true).ads ?? []
    expect(com.map((a) => [a.block, a.position, a.domain])).toEqual([
      ['top', 1, 'godaddy.com'],
      ['top', 2, 'domains.google'],
      ['bottom', 1, 'ionos.com'],
    ])
    expect(page('web-desktop/zlurad-hotels.html', true).results).toHaveLength(9)
  })
})

describe('desktop: product ads ("Sponsored" product carousel and PLA cards)', () => {
  const ads = (path: string) => parseGoogleSearch(fixture(`serp/google/${path}`).toString('utf8'), { includeAds: true }).ads ?? []

  it('best-running-shoes (2023): the 12 cards of the sponsored carousel, in order, outside the results', () => {
    const shoes = ads('web-desktop/codechallenge-best-running-shoes.html')
    expect(shoes).toHaveLength(12)
    expect(shoes.map((a) => [a.block, a.position])).toEqual(shoes.map((_, i) => ['top', i + 1]))
    expect(shoes[0]).toEqual({
      position: 1,
      block: 'top',
      title: "Nike Men's Pegasus 40 Road Running Shoes in White, Size: 10.5 | DV3853-100",
      link: 'https://www.nike.com/t/pegasus-40-mens-road-running-shoes-mVJdmS/DV3853-100?nikemt=true',
      domain: 'nike.com',
      displayed_link: 'Nike',
      snippet: '$130.00',
    })
    expect(shoes[5]).toMatchObject({ domain: 'on-running.com', displayed_link: 'On', snippet: '$179.99 · Free by 9/8' })
    expect(shoes.map((a) => a.displayed_link)).toEqual([
      'Nike',
      'Brooks Running',
      'Allbirds',
      'NOBULL',
      'Nike',
      'On',
      'On',
      'adidas',
      'Allbirds',
      'Nike',
      'Allbirds',
      'Brooks Running',
    ])
    const organic = page('web-desktop/codechallenge-best-running-shoes.html').results.map((r) => r.link)
    for (const ad of shoes) expect(organic).not.toContain(ad.link)
  })

  it('sescraper-shopping-pla (2020, French): the text ad, then the right-hand product cards', () => {
    const fr = ads('web-desktop/old-2020/sescraper-shopping-pla.html')
    expect(fr.map((a) => [a.block, a.position, a.domain])).toEqual([
      ['top', 1, 'lacoste.com'],
      ['top', 2, 'laboutiqueofficielle.com'],
      ['top', 3, 'chausport.com'],
      ['top', 4, 'getthelabel.com'],
      ['top', 5, 'sarenza.com'],
      ['top', 6, 'spartoo.com'],
      ['top', 7, 'nike.com'],
    ])
    expect(fr[1]).toMatchObject({ title: 'Classic Series - Baskets 317 Blanc', displayed_link: 'LaBoutiqueOfficielle.com', snippet: '39,99 €' })
    expect(fr[2]).toMatchObject({ link: 'https://www.chausport.com/p/lacoste-carnaby-evo-noire-enfant-173257.html', snippet: '45,00 € · Livraison gratuite' })
  })

  it('finds a product card by its merchant-offer link when the class names change', () => {
    const html = fixture('serp/google/web-desktop/codechallenge-best-running-shoes.html')
      .toString('utf8')
      .replace(/\bpla-unit\b/g, 'x-unit')
    const renamed = parseGoogleSearch(html, { includeAds: true }).ads ?? []
    expect(renamed.map((a) => a.title)).toEqual(ads('web-desktop/codechallenge-best-running-shoes.html').map((a) => a.title))
  })

  it('no product ads without ads=true', () => {
    expect(page('web-desktop/codechallenge-best-running-shoes.html').ads).toBeUndefined()
  })
})

describe('desktop: other zlurad pages', () => {
  it('zlurad-domain: sitelinks and knowledge panel', () => {
    const p = page('web-desktop/zlurad-domain.html')
    expect(p.results).toHaveLength(8)
    expect(p.results[0]?.sitelinks?.[0]).toEqual({ title: 'Domain Name Search', link: 'https://www.domain.com/domains/' })
    expect(p.knowledge_graph?.title).toBe('Domain name')
  })
  it('zlurad-_com-domains: 10 results and the ".com" panel', () => {
    const p = page('web-desktop/zlurad-_com-domains.html')
    expect(p.results).toHaveLength(10)
    expect(p.results[0]).toMatchObject({ link: 'https://www.godaddy.com/tlds/com-domain', displayed_link: 'https://www.godaddy.com › Tlds' })
    expect(p.knowledge_graph).toMatchObject({ title: '.com', type: 'Top-level domain' })
    expect(p.related_searches?.[0]).toEqual({ query: 'google domains' })
  })
  it('zlurad-no-results: empty, with the printed count of 0', () => {
    const p = page('web-desktop/zlurad-no-results.html')
    expect(p).toEqual({ results: [], total_results: 0, parse_quality: 'empty', saysNoResults: true })
  })
})

describe('desktop: archive and browser captures', () => {
  it('aql-evan-colborne (2022)', () => {
    const p = page('web-desktop/aql-evan-colborne.html')
    expect(p.results).toHaveLength(10)
    expect(p.results[0]).toMatchObject({
      title: 'Team - Evan Colborne - Cosmos Sports & Entertainment',
      link: 'https://www.cosmossports.com/team-evan-colborne/',
      domain: 'cosmossports.com',
      displayed_link: 'https://www.cosmossports.com › team-evan-colborne',
    })
    expect(p.results[0]?.snippet).toMatch(/^Evan serves as the Director of Marketing & Strategy with Cosmos Sports/)
    expect(p.total_results).toBe(1260)
  })
  it('aql-modern-times-chaplin-watch-online: results nested in a knowledge layout, videos excluded', () => {
    const p = page('web-desktop/aql-modern-times-chaplin-watch-online.html')
    expect(links(p)).toEqual([
      'https://www.amazon.com/Modern-Times-Charlie-Chaplin/dp/B004DARF6A',
      'https://www.hbomax.com/feature/urn:hbo:feature:GXk3juwcBFTC3wwEAAAfD',
      'https://www.justwatch.com/us/movie/modern-times',
      'https://fmovies.co/film/charlie-chaplin-modern-times-6977/',
      'https://ridomovies.com/movies/modern-times-watch-online-1936-rd1/',
      'https://www.imdb.com/title/tt0027977/',
    ])
    expect(p.knowledge_graph?.title).toBe('Modern Times')
    expect(p.people_also_ask?.[0]).toEqual({ question: 'How do I watch Modern Times?' })
  })
  it('codechallenge-best-running-shoes: videos and brand cards excluded', () => {
    const p = page('web-desktop/codechallenge-best-running-shoes.html')
    expect(p.results).toHaveLength(9)
    expect(p.results[0]).toMatchObject({ title: 'The Best Running Shoes of 2023', domain: 'runnersworld.com' })
    expect(links(p).some((l) => /youtube\.com|nike\.com|asics\.com/.test(l))).toBe(false)
    expect(p.related_searches?.[0]).toEqual({ query: 'best running shoes 2023' })
  })
  it('codechallenge-ios-games, movies-near-me and steven-spielberg-films', () => {
    const ios = page('web-desktop/codechallenge-ios-games.html')
    expect(ios.results).toHaveLength(9)
    expect(ios.knowledge_graph).toMatchObject({ title: 'iOS', type: 'Operating system' })
    const movies = page('web-desktop/codechallenge-movies-near-me.html')
    expect(movies.results).toHaveLength(10)
    expect(movies.results[0]).toMatchObject({ title: 'Movies at AMC', link: 'https://www.amctheatres.com/movies' })
    const films = page('web-desktop/codechallenge-steven-spielberg-films.html')
    expect(films.results).toHaveLength(50)
    expect(films.results[0]).toMatchObject({ title: 'Steven Spielberg filmography', domain: 'en.wikipedia.org' })
  })
  it('starify-react-github-2025: a sitelinks table becomes sitelinks of the first result', () => {
    const p = page('web-desktop/starify-react-github-2025.html')
    expect(p.results).toHaveLength(8)
    expect(p.results[0]?.sitelinks?.map((s) => s.title)).toEqual(['Create React App', 'Releases 106', 'Issues', 'Pull requests'])
    expect(links(p)).not.toContain('https://github.com/facebook/create-react-app')
    expect(p.total_results).toBe(141_000_000)
    expect(p.people_also_ask?.[0]).toEqual({ question: 'Is React deprecated?' })
  })
  it('old-2020 se-scraper pages (French UI)', () => {
    const p = page('web-desktop/old-2020/sescraper-shopping-pla.html')
    expect(p.results).toHaveLength(10)
    expect(p.results[0]).toMatchObject({
      title: 'Cheap Lacoste Trainers | Lowest prices at MandM Direct',
      link: 'https://www.mandmdirect.com/01/lacoste/trainers',
      displayed_link: 'www.mandmdirect.com › Lacoste',
    })
    expect(p.places?.[0]).toMatchObject({ title: 'Lacoste Paris - Forum des Halles', rating: 4.3, rating_count: 93, phone_number: '01 42 86 90 65' })
    expect(p.total_results).toBe(54_900_000)
    expect(p.related_searches?.[0]).toEqual({ query: 'lacoste discount' })
    expect(page('web-desktop/old-2020/sescraper-shopping-right-product-review.html').results).toHaveLength(9)
  })
})

it('knowledge-graph attributes are fact rows, not widgets that contain a colon', () => {
  const coffee = parseGoogleSearch(read('web-desktop/zlurad-coffee.html'))
  expect(coffee.knowledge_graph?.title).toBe('Coffee')
  expect(coffee.knowledge_graph?.attributes).toBeUndefined() // only a nutrition table with "Sources include: USDA…"
  const matrix = parseGoogleSearch(read('web-desktop/zlurad-matrix.html'))
  expect(matrix.knowledge_graph?.attributes?.Directors).toBe('Lilly Wachowski, Lana Wachowski')
})

describe('saysNoResults: only a page that itself says nothing matched', () => {
  // A redesign that hides every result must still count as drift, never as "no results".
  const pages = [...listFixtures('serp/google/web-desktop'), ...listFixtures('serp/google/web-mobile').map((f) => `../web-mobile/${f}`)]
  it.each(pages.filter((f) => !f.includes('no-results') && !f.includes('recaptcha')))('%s with its results column emptied is not a no-results page', (file) => {
    const $ = loadCheerio(readFixture(`serp/google/web-desktop/${file}`).toString('utf8'))
    expect(parseGoogleSearch($.html()).saysNoResults).toBeUndefined()
    $('#rso, #center_col, #search').empty()
    expect(parseGoogleSearch($.html()).saysNoResults).toBeUndefined()
  })
})
