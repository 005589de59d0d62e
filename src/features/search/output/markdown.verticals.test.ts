import { describe, expect, test } from 'vitest'
import { renderMarkdown } from './markdown.format.ts'
import { imagesBody, mapsBody, newsBody, patentsBody, reviewsBody, scholarBody, shoppingBody, videosBody } from './sample-bodies.fixture.ts'

const FOOTER = '---\n\nEngine: google · Credits used: 1 · Cached: no\n'

describe('renderMarkdown: other verticals', () => {
  test('news: source and relative date, numbered from the page position, cached footer', () => {
    expect(renderMarkdown('news', newsBody())).toBe(`# News: fed rates

Page 2

11. [Fed holds rates steady, signals 3 cuts in 2024](https://www.reuters.com/markets/us/fed-holds-2024-03-20/) — Reuters · 3 hours ago

    The Federal Reserve held its policy rate in the 5.25%-5.50% range.

12. [What the Fed decision means for mortgages](https://www.cnbc.com/2024/03/20/fed-mortgages.html) — cnbc.com · 1 day ago

---

Engine: google · Credits used: 0.5 · Cached: yes, from 2024-03-20T18:02:11Z
`)
  })

  test('images: thumbnail, source link, size and the full image', () => {
    expect(renderMarkdown('images', imagesBody())).toBe(`# Images: golden retriever

1. ![Golden Retriever \\[Dog Breed\\]](https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9Gc1) — [Wikipedia](https://en.wikipedia.org/wiki/Golden_Retriever) · 1920×1280 · [full image](https://upload.wikimedia.org/golden_retriever.jpg)

2. ![Puppy in snow](https://images.example.com/puppy.jpg) — [Example Photos](https://images.example.com/puppy)

${FOOTER}`)
  })

  test('images: an entry without any usable picture still shows its title', () => {
    const body = imagesBody()
    body.results = [{ position: 1, title: 'No picture', link: 'https://a.example/p', image_url: 'data:image/png;base64,AAAA' }]
    expect(renderMarkdown('images', body)).toContain('\n\n1. [No picture](https://a.example/p)\n\n')
  })

  test('videos: channel, platform, duration and date', () => {
    expect(renderMarkdown('videos', videosBody())).toBe(`# Videos: latte art

1. [Latte Art for Beginners](https://www.youtube.com/watch?v=abc123) — Lance Hedrick · YouTube · 12:04 · 2 weeks ago

   Pour a heart in five steps.

${FOOTER}`)
  })

  test('maps: rating, kind and price, then address, phone, website and place id, then hours', () => {
    expect(renderMarkdown('maps', mapsBody())).toBe(`# Maps: coffee

Location: Austin, Texas

1. **Houndstooth Coffee** — ★ 4.6 (1,287) · Coffee shop · $$

   401 Congress Ave #100c, Austin, TX 78701 · (512) 555-0199 · [houndstoothcoffee.com](https://www.houndstoothcoffee.com/) · place_id \`ChIJd8BlQ2BZwokRAFUEcm_qrcA\`

   Hours: Monday 7 AM–6 PM; Tuesday 7 AM–6 PM; Sunday Closed

2. **Mystery Café** — Cafe

${FOOTER}`)
  })

  test('places uses the maps layout', () => {
    const body = mapsBody()
    body.request = { endpoint: 'places', q: 'coffee' }
    expect(renderMarkdown('places', body)).toContain('# Places: coffee\n\n1. **Houndstooth Coffee** — ★ 4.6 (1,287)')
  })

  test('shopping: a table with pipes escaped and columns nobody filled left out', () => {
    expect(renderMarkdown('shopping', shoppingBody())).toBe(`# Shopping: aeropress

| # | Product | Price | Source | Rating | Delivery | Offers |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | [AeroPress Original \\| Coffee Maker](https://www.amazon.com/dp/B0047BIWSK) | $39.95 | Amazon.com | ★ 4.8 (21,034) | Free delivery | 12 stores |
| 2 | [AeroPress Go Travel](https://www.target.com/p/aeropress-go) | 31.99 USD | Target |  |  |  |

${FOOTER}`)

    const sparse = shoppingBody()
    sparse.results = [{ position: 1, title: 'Filter papers', price: '$5', source: 'A|B Store' }]
    expect(renderMarkdown('shopping', sparse)).toContain(
      '| # | Product | Price | Source |\n| --- | --- | --- | --- |\n| 1 | Filter papers | $5 | A\\|B Store |\n',
    )
  })

  test('scholar: publication line, citations and PDF', () => {
    expect(renderMarkdown('scholar', scholarBody())).toBe(`# Scholar: coffee consumption mortality

1. [Association of coffee drinking with total and cause-specific mortality](https://www.nejm.org/doi/full/10.1056/NEJMoa1112010) — ND Freedman, Y Park - New England Journal of Medicine, 2012

   Coffee drinking was inversely associated with total mortality.

   Cited by 1,843 · [PDF](https://www.nejm.org/doi/pdf/10.1056/NEJMoa1112010)

${FOOTER}`)
  })

  test('patents: number, people and dates, abstract, PDF', () => {
    expect(renderMarkdown('patents', patentsBody())).toBe(`# Patents: espresso pump

1. [Espresso machine with rotary pump](https://patents.google.com/patent/US9999999B2/en) — US9999999B2

   Inventor: Mario Rossi · Assignee: La Marzocco S.r.l. · Priority: 2015-06-01 · Filed: 2016-05-30 · Granted: 2018-06-05 · Published: 2018-06-05 · Language: en

   A pump delivers water at 9 bar to a brewing chamber.

   [PDF](https://patentimages.storage.googleapis.com/US9999999B2.pdf)

${FOOTER}`)
  })

  test('reviews: stars, user, dates, text, owner response and the next page token', () => {
    expect(renderMarkdown('reviews', reviewsBody())).toBe(`# Reviews

Sorted by newest

1. ★★★★★ 5/5 — Dana K. (48 reviews) · 2 weeks ago (2024-03-06) · 3 likes

   Best cortado in town. Staff knows their \\*beans\\*.

   > **Owner response** (1 week ago): Thanks Dana, see you soon!

2. ★★☆☆☆ 2/5 — Sam (1 review) · a month ago (2024-02-10)

   \\- too loud, > 20 min wait

More reviews: pass page_token \`CAESY0NBRVFDaG9\` with the same place and sort.

${FOOTER}`)
  })

  test('reviews: the default sort order is not spelled out', () => {
    const body = reviewsBody()
    body.request = { ...body.request, sort: 'most_relevant' }
    expect(renderMarkdown('reviews', body).startsWith('# Reviews\n\n1. ★★★★★ 5/5')).toBe(true)
  })

  test('reviews: the last page has no token line', () => {
    const { next_page_token: _token, ...body } = reviewsBody()
    expect(renderMarkdown('reviews', body)).not.toContain('page_token')
  })
})
