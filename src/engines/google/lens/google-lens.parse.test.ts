import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import { imageMap, initDataBlobs, parseGoogleLens } from './google-lens.parse.ts'

const CONSTRUCTED = new URL('../../../../test/fixtures/google/lens/', import.meta.url)
const constructed = (name: string) => readFileSync(new URL(name, CONSTRUCTED), 'utf8')
const udm26 = constructed('lens-udm26-visual-matches.constructed.html')
const legacy = constructed('lens-legacy-afdata.constructed.html')
const g19kaf = constructed('lens-g19kaf-cards.constructed.html')

describe('constructed udm=26 results page (HTML cards)', () => {
  const page = parseGoogleLens(udm26)

  it('reads the visual matches once each, in order, without related searches', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results.map((r) => [r.position, r.domain])).toEqual([
      [1, 'catbreedsguide.example'],
      [2, 'petphotos.example'],
      [3, 'reddit.com'],
      [4, 'shop.felinehome.example'],
      [5, 'en.wikipedia.org'],
      [6, 'instagram.com'],
    ])
  })

  it('fills title, site name, link, domain and the thumbnail from the google.ldi map', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Tabby Cat Markings Explained: Classic, Mackerel, Spotted and Ticked',
      source: 'Cat Breeds Guide',
      link: 'https://www.catbreedsguide.example/tabby-cat-markings',
      domain: 'catbreedsguide.example',
      thumbnail_url: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9GcTabbyMarkings&s',
    })
  })

  it('uses data-src when there is no map entry, and leaves base64 thumbnails out', () => {
    expect(page.results[3]?.thumbnail_url).toBe('https://encrypted-tbn2.gstatic.com/images?q=tbn:ANd9GcPosterA3&s')
    expect(page.results[2]).toEqual({
      position: 3,
      title: 'Meet Biscuit, our new rescue : r/cats',
      source: 'Reddit',
      link: 'https://www.reddit.com/r/cats/comments/abc123/meet_biscuit/',
      domain: 'reddit.com',
    })
  })

  it('leaves out what a card does not show', () => {
    expect(page.results[5]).toEqual({
      position: 6,
      title: 'Sunday nap mood 😴🐈 #tabby #catsofinstagram',
      link: 'https://www.instagram.com/p/C4tAbBy/',
      domain: 'instagram.com',
    })
  })

  it('reads the thumbnail map with its \\u003d escapes decoded', () => {
    const map = imageMap(udm26)
    expect(map.size).toBe(5)
    expect(map.get('dimg_Mx4a5')).toBe('https://encrypted-tbn1.gstatic.com/images?q=tbn:ANd9GcWikiTabby&s')
  })
})

describe('constructed page of the older card generation (div.G19kAf.ENn9pd)', () => {
  const page = parseGoogleLens(g19kaf)

  it('reads every card, in order, without related searches', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results.map((r) => [r.position, r.domain])).toEqual([
      [1, 'kitchenstore.example'],
      [2, 'flickr.com'],
      [3, 'retrohome.example'],
    ])
  })

  it('fills title (.UAiK1e), site name (.fjbPGe), link and the thumbnail, never the favicon', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Red Enamel Stovetop Kettle 2 L',
      source: 'Kitchen Store',
      link: 'https://www.kitchenstore.example/kettles/red-enamel-kettle',
      domain: 'kitchenstore.example',
      thumbnail_url: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9GcOldKettle1',
    })
    // A lazy image's data-src; a base64 placeholder gives way to the card's data-thumbnail-url.
    expect(page.results[1]).toMatchObject({ title: 'Kettle on the camp stove', source: 'Flickr', thumbnail_url: expect.stringContaining('OldKettle2') })
    expect(page.results[2]).toMatchObject({
      title: 'Why do enamel kettles whistle?',
      source: 'Retro Home',
      thumbnail_url: expect.stringContaining('OldKettle3'),
    })
  })

  it('falls back on the card data attributes for the link and the title', () => {
    const bare = g19kaf
      .replaceAll(/<a class="GZrdsf[^>]*>/g, '<span>')
      .replaceAll('</a>\n  </div>', '</span>\n  </div>')
      .replaceAll('class="UAiK1e"', 'class="x"')
    const read = parseGoogleLens(bare)
    expect(read.results[0]).toMatchObject({ title: 'Red Enamel Stovetop Kettle 2 L', link: 'https://www.kitchenstore.example/kettles/red-enamel-kettle' })
    expect(read.results).toHaveLength(3)
  })

  it('reads both generations when a page mixes them', () => {
    const cards = g19kaf.slice(g19kaf.indexOf('<div class="G19kAf'), g19kaf.indexOf('<div class="LzliJc">'))
    const mixed = udm26.replace('<div class="aah4tc">', `<div class="aah4tc">${cards}`)
    expect(parseGoogleLens(mixed).results.map((r) => r.domain)).toEqual([
      'kitchenstore.example',
      'flickr.com',
      'retrohome.example',
      'catbreedsguide.example',
      'petphotos.example',
      'reddit.com',
      'shop.felinehome.example',
      'en.wikipedia.org',
      'instagram.com',
    ])
  })
})

describe('constructed older lens.google.com page (AF_initDataCallback data)', () => {
  const page = parseGoogleLens(legacy)

  it('finds the visual matches by their shape, not the best-match entity', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results.map((r) => r.title)).toEqual([
      'Blue Enamel Camping Mug 12 oz',
      'Speckled enamel mug in the morning light',
      'Enamelware care guide: how to clean enamel mugs',
      'Emaille Becher blau 350 ml',
      'Pinterest: camp coffee setups',
    ])
  })

  it('fills every field a match carries', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Blue Enamel Camping Mug 12 oz',
      source: 'Trail Gear Co.',
      link: 'https://www.trailgear.example/products/enamel-mug-blue',
      domain: 'trailgear.example',
      thumbnail_url: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9GcLegacyMug1',
    })
    expect(page.results[3]).toMatchObject({ source: 'Campingmarkt', domain: 'campingmarkt.example' })
  })

  it('parses every data blob on the page, including the unrelated ds:1', () => {
    const blobs = initDataBlobs(legacy)
    expect(blobs).toHaveLength(2)
    expect((blobs[0] as unknown[])[0]).toEqual(['en-US', 'US'])
  })
})

describe('fallbacks and refusals', () => {
  it('reads outbound image links when the card classes are renamed, and says so', () => {
    const renamed = udm26.replaceAll('vEWxFf', 'qQ1zZ').replaceAll('LBcIee', 'xX9yY').replaceAll('Yt787', 'tT0aA')
    const page = parseGoogleLens(renamed)
    expect(page.parse_quality).toBe('partial')
    expect(page.results).toHaveLength(6)
    expect(page.results[4]).toMatchObject({ link: 'https://en.wikipedia.org/wiki/Tabby_cat', title: 'Tabby cat - Wikipedia', source: 'Wikipedia' })
  })

  it('marks a page partial when a card has no usable link', () => {
    const broken = udm26.replace('href="https://en.wikipedia.org/wiki/Tabby_cat"', 'href="/search?q=tabby"')
    const page = parseGoogleLens(broken)
    expect(page.parse_quality).toBe('partial')
    expect(page.results.map((r) => r.domain)).not.toContain('en.wikipedia.org')
    expect(page.results).toHaveLength(5)
  })

  it('answers partial, not empty, when every card is unreadable', () => {
    const html = '<div id="rso"><div class="vEWxFf"><a class="LBcIee" href="/search?q=cat"><div class="Yt787">Cat</div></a></div></div>'
    expect(parseGoogleLens(html)).toEqual({ results: [], parse_quality: 'partial' })
  })

  it('never parses the CAPTCHA page, a consent wall or a script-only shell', () => {
    const captcha = fixture('serp/google/web-desktop/zlurad-recaptcha.html').toString('utf8')
    const consent = '<html><body><form action="https://consent.google.com/save"><h1>Before you continue to Google</h1></form></body></html>'
    const shell = '<html><body><noscript><a href="/httpservice/retry/enablejs?sei=x">here</a></noscript><div id="search"></div></body></html>'
    for (const body of [captcha, consent, shell, '']) expect(parseGoogleLens(body)).toEqual({ results: [], parse_quality: 'empty' })
  })

  it('answers a page without matches as empty', () => {
    expect(parseGoogleLens('<html><body><div id="rso"><div role="heading">No matches for this image</div></div></body></html>')).toEqual({
      results: [],
      parse_quality: 'empty',
    })
  })

  it('does not read a web result page as Lens matches', () => {
    const web = fixture('serp/google/web-desktop/zlurad-coffee.html').toString('utf8')
    expect(parseGoogleLens(web)).toEqual({ results: [], parse_quality: 'empty' })
  })
})
