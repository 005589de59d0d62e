import type { Element } from 'domhandler'
import { describe, expect, it } from 'vitest'
import { fixture } from '../../../test/support/fake-upstream.ts'
import { listFixtures } from '../../../test/support/fixtures.ts'
import type { ParsedSearchPage } from '../engine.types.ts'
import { documentOf, domIndex } from '../parse/dom-index.ts'
import { loadPage } from '../parse/html.ts'
import { detectGoogleBlock } from './google-block.detect.ts'
import { outboundResults } from './google-links.parse.ts'
import { parseGoogleSearch } from './google-search.parse.ts'

const read = (file: string) => fixture(`serp/google/web-mobile/${file}`).toString('utf8')
const page = (file: string, includeAds = false): ParsedSearchPage => parseGoogleSearch(read(file), { includeAds })
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
    expect(page('zlurad-no-results.html')).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
  })
})

// Every saved result page, mobile first: a page showing results must never come out `empty`. The
// genuine no-results captures are named so; the CAPTCHA page is a block (google-block tests).
const CAPTURES = ['web-mobile', 'web-basic', 'web-nojs', 'web-desktop']
  .flatMap((dir) => listFixtures(`serp/google/${dir}`, true).map((f) => `${dir}/${f}`))
  .filter((f) => f.endsWith('.html') && !f.includes('recaptcha'))

describe('every saved web page', () => {
  it('includes every mobile capture', () => {
    expect(CAPTURES.filter((f) => f.startsWith('web-mobile/')).length).toBeGreaterThanOrEqual(8)
  })

  it.each(CAPTURES)('%s', (path) => {
    const p = parseGoogleSearch(fixture(`serp/google/${path}`).toString('utf8'))
    if (path.includes('no-results')) {
      expect(p.results).toEqual([])
      expect(p.parse_quality).toBe('empty')
      return
    }
    expect(p.parse_quality).not.toBe('empty')
    expect(p.results.length).toBeGreaterThan(0)
    for (const r of p.results) {
      expect(r.title.length).toBeGreaterThan(0)
      expect(r.link).toMatch(/^https?:\/\//)
    }
  })
})

// Layouts none of the captures has, written to the structure the current scrapers document
// (SearXNG's /wml/search and "modern mobile UI" readers, Whoogle's basic pages).
const html = (body: string) => `<html><head><meta name="viewport" content="width=device-width"></head><body>${body}</body></html>`
const FOOTER =
  '<div><a href="https://support.google.com/websearch?p=ws_settings_location">Learn more</a> <a href="https://policies.google.com/privacy">Privacy</a></div>'

describe('mobile layouts without headings', () => {
  it('the feature-phone page (/wml/search): title and address in one link', () => {
    const result = (url: string, title: string, crumb: string, snippet: string) =>
      `<div class="zMzFAb"><div><a class="fuLhoc ZWRArf" href="/url?q=${encodeURIComponent(url)}&amp;sa=U&amp;ved=x"><span class="CVA68e qXLe6d">${title}</span> <span class="qXLe6d dXDvrc"><span class="fYyStc">${crumb}</span></span></a></div><div class="taTFJ"><span class="qXLe6d FrIlee"><span class="fYyStc">${snippet}</span></span></div></div>`
    const p = parseGoogleSearch(
      `<?xml version="1.0" encoding="UTF-8"?>${html(
        result(
          'https://docs.python.org/3/library/asyncio.html',
          'asyncio — Asynchronous I/O',
          'docs.python.org › library',
          'asyncio is a library to write concurrent code.',
        ) +
          result(
            'https://realpython.com/async-io-python/',
            'Async IO in Python: A Complete Walkthrough',
            'realpython.com › async-io-python',
            'Jul 30, 2024 · A firm grasp of async IO.',
          ) +
          '<table class="HExoMb"><tr><td><a class="ZWRArf" href="/search?q=asyncio+tutorial">asyncio tutorial</a></td></tr></table>' +
          FOOTER,
      )}`,
    )
    expect(p.parse_quality).toBe('partial')
    expect(p.results).toEqual([
      {
        position: 1,
        title: 'asyncio — Asynchronous I/O',
        link: 'https://docs.python.org/3/library/asyncio.html',
        domain: 'docs.python.org',
        displayed_link: 'docs.python.org › library',
        snippet: 'asyncio is a library to write concurrent code.',
      },
      {
        position: 2,
        title: 'Async IO in Python: A Complete Walkthrough',
        link: 'https://realpython.com/async-io-python/',
        domain: 'realpython.com',
        displayed_link: 'realpython.com › async-io-python',
        snippet: 'A firm grasp of async IO.',
        date: 'Jul 30, 2024',
      },
    ])
  })

  it('the older basic mobile page: plain title and address lines in the link', () => {
    const p = parseGoogleSearch(
      html(
        '<div class="ZINbbc"><div class="kCrYT"><a href="/url?q=https://en.wikipedia.org/wiki/Coffee&amp;sa=U"><div class="BNeawe vvjwJb">Coffee - Wikipedia</div><div class="BNeawe UPmit">en.wikipedia.org › wiki › Coffee</div></a></div>' +
          '<div class="kCrYT"><div class="BNeawe s3v9rd">Coffee is a drink prepared from roasted coffee beans.</div></div></div>' +
          FOOTER,
      ),
    )
    expect(p.results).toEqual([
      expect.objectContaining({
        title: 'Coffee - Wikipedia',
        link: 'https://en.wikipedia.org/wiki/Coffee',
        displayed_link: 'en.wikipedia.org › wiki › Coffee',
      }),
    ])
    expect(p.parse_quality).toBe('partial')
  })

  it('site name and address above an unmarked title: the line after the address is the title', () => {
    const result = (url: string, site: string, title: string) =>
      `<div><a data-ved="x" href="${url}"><div><span>${site}</span><span role="text">${url.replace(/\/$/, '')}</span></div><div style="-webkit-line-clamp:2">${title}</div></a><div>Some description of the page that is long enough to be a snippet.</div></div>`
    const p = parseGoogleSearch(
      html(
        `<div id="rso">${result('https://go.dev/', 'Go', 'The Go Programming Language')}${result('https://en.wikipedia.org/wiki/Go', 'Wikipedia', 'Go - Wikipedia')}</div>`,
      ),
    )
    expect(p.results.map((r) => [r.title, r.link, r.displayed_link])).toEqual([
      ['The Go Programming Language', 'https://go.dev/', 'https://go.dev'],
      ['Go - Wikipedia', 'https://en.wikipedia.org/wiki/Go', 'https://en.wikipedia.org/wiki/Go'],
    ])
  })

  it('an unknown section label over the results does not hide them', () => {
    const real = read('zlurad-google.html')
    const labelled = real.replace(/(<div[^>]*id="rso"[^>]*>)/, '$1<div role="heading" aria-level="2">Ergebnisse aus dem Web</div>')
    expect(labelled).not.toBe(real)
    const p = parseGoogleSearch(labelled)
    expect(links(p)).toEqual(links(parseGoogleSearch(real)))
    expect(p.parse_quality).toBe('partial')
  })

  it('a page with result markup and nothing else is read by its titled links, partial, never empty', () => {
    const p = parseGoogleSearch(html('<div id="rso"><a href="https://example.com/"><div role="heading" aria-level="3">Example</div></a></div>'))
    expect(p).toEqual({ results: [{ position: 1, title: 'Example', link: 'https://example.com/', domain: 'example.com' }], parse_quality: 'partial' })
    expect(parseGoogleSearch(html(`<div id="rso"><p>Your search did not match any documents.</p></div>${FOOTER}`)).parse_quality).toBe('empty')
  })
})

// A layout none of the readers knows. What they key on is taken out of a real page: class names,
// the result-container ids, heading tags and levels, ARIA roles; the <noscript> refresh to the
// enablejs page that every JavaScript result page carries is put in (the stripped page then has
// neither result markup nor a result column, as the JavaScript page itself).
const ENABLEJS_NOSCRIPT = '<noscript><meta content="0;url=/httpservice/retry/enablejs?sei=x" http-equiv="refresh"></noscript>'
const unknownLayout = (page: string) =>
  page
    .replace(/\sclass="[^"]*"/g, '')
    .replace(/\sid="(rso|search|center_col|main)"/g, '')
    .replace(/\saria-level="\d"/g, '')
    .replace(/\srole="[a-z]+"/g, '')
    .replace(/<(\/?)h[1-6]\b/g, '<$1div')
    .replace('</body>', `${ENABLEJS_NOSCRIPT}</body>`)

const MOBILE = listFixtures('serp/google/web-mobile', true).filter((f) => f.endsWith('.html') && !f.includes('no-results'))

describe('mobile pages in a layout no reader knows: never empty while they hold result links', () => {
  it.each(MOBILE)('%s', (file) => {
    const real = page(file)
    const stripped = unknownLayout(read(file))
    expect(stripped).not.toMatch(/<h3|id="rso"|role="heading"/)
    expect(detectGoogleBlock({ status: 200, url: 'https://www.google.com/search?q=x', body: stripped })).toBeNull()
    const p = parseGoogleSearch(stripped)
    expect(p.parse_quality).toBe('partial')
    // Most of what the layout readers read on the real page, and nothing off the page.
    const found = links(p).filter((l) => links(real).includes(l))
    expect(found.length).toBeGreaterThanOrEqual(Math.ceil(links(real).length / 2))
    for (const r of p.results) expect(stripped).toContain(new URL(r.link).hostname)
  })

  it('the outbound-link reader alone reads every organic result of every real mobile page', () => {
    for (const file of MOBILE) {
      const $ = loadPage(read(file).replace(/\sclass="[^"]*"/g, ''))
      const body = domIndex(documentOf($)).findFirst(documentOf($), (el) => el.name === 'body') as Element
      const outbound = outboundResults($, body).map((r) => r.link)
      expect({ file, missing: links(page(file)).filter((l) => !outbound.includes(l)) }).toEqual({ file, missing: [] })
    }
  })

  it('a page whose results no layout reader takes (titles in unlevelled headings, no address lines) answers them as partial', () => {
    const result = (url: string, title: string) =>
      `<div><div><a href="${url}"><div role="heading">${title}</div></a></div><div><span>A description of the page, long enough to be read as its snippet.</span></div></div>`
    const body = html(
      `<header><a href="https://accounts.google.com/ServiceLogin">Sign in</a></header><div id="main">${result('https://example.com/a', 'Example &amp; Co — first page')}${result('https://example.org/b', 'Second page')}</div>${FOOTER}<footer><a href="https://example.net/ad">Advertise with us</a></footer>${ENABLEJS_NOSCRIPT}`,
    )
    expect(detectGoogleBlock({ status: 200, url: 'https://www.google.com/search?q=x', body })).toBeNull()
    expect(parseGoogleSearch(body)).toEqual({
      results: [
        {
          position: 1,
          title: 'Example & Co — first page',
          link: 'https://example.com/a',
          domain: 'example.com',
          snippet: 'A description of the page, long enough to be read as its snippet.',
        },
        {
          position: 2,
          title: 'Second page',
          link: 'https://example.org/b',
          domain: 'example.org',
          snippet: 'A description of the page, long enough to be read as its snippet.',
        },
      ],
      parse_quality: 'partial',
    })
  })
})
