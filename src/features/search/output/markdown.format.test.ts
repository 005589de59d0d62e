import { describe, expect, test } from 'vitest'
import { ApiError } from '../../../errors.ts'
import { assertFormatAllowed, MARKDOWN_VERTICALS, renderMarkdown } from './markdown.format.ts'
import { searchBody } from './sample-bodies.fixture.ts'

const SEARCH_MARKDOWN = `# Search: espresso machine

## Answer

9 bars of pressure

Most machines brew at 9 bars of pressure.

Source: [How to choose an espresso machine](https://www.example.org/guide) — example.org

## Knowledge graph: Espresso machine

*Kitchen appliance*

An espresso machine brews coffee by forcing pressurized water through ground coffee. ([Wikipedia](https://en.wikipedia.org/wiki/Espresso_machine))

- **Inventor:** Angelo Moriondo
- **First patented:** 1884

## Results

1. [The 6 Best Espresso Machines of 2024 | Tested & Reviewed](https://www.seriouseats.com/best-espresso-machines-7100546) — seriouseats.com · Mar 4, 2024

   We tested 14 espresso machines; the \\*Breville Bambino Plus\\* is our top pick.

   Sitelinks: [Best Overall](https://www.seriouseats.com/best-espresso-machines-7100546#overall) · [Budget \\[Pick\\]](https://www.seriouseats.com/best-espresso-machines-7100546#budget)

2. [Espresso machine - Wikipedia](https://en.wikipedia.org/wiki/Espresso_machine_%28coffee%29) — en.wikipedia.org

   An espresso machine brews coffee by forcing pressurized water near boiling point through a "puck".

3. [# 1 Rated \\<Espresso> Deals](https://deals.example.com/espresso?ref=a%7Cb) — deals.example.com

## People also ask

- **Is a $200 espresso machine worth it?** For most home baristas, yes, if it holds temperature. ([reddit.com](https://www.reddit.com/r/espresso/comments/abc))
- **What is the 1 2 3 rule for espresso?**

## Top stories

- [Breville recalls 2,000 espresso machines](https://www.theverge.com/2024/3/1/breville-recall) — The Verge · 2 hours ago

## Places

1. **Espresso Parts** — ★ 4.7 (312) · Coffee machine supplier

   2900 Mottman Rd SW, Olympia, WA · +1 360-555-0134 · [espressoparts.com](https://www.espressoparts.com/) · place_id \`ChIJ7x9aQm1zkVQR\`

## Related searches

- espresso machine with grinder
- best espresso machine under $500

## Sponsored

- Sponsored · [Espresso Machines on Sale](https://www.williams-sonoma.com/espresso) — williams-sonoma.com: Free shipping on orders over $49.

---

Engine: google · Credits used: 1 · Cached: no
`

describe('renderMarkdown: search', () => {
  test('renders every feature block in reading order', () => {
    expect(renderMarkdown('search', searchBody())).toBe(SEARCH_MARKDOWN)
  })

  test('leaves out ads, and every other block, when the body has none', () => {
    const { ads: _ads, knowledge_graph: _kg, answer_box: _ab, top_stories: _ts, places: _pl, ...rest } = searchBody()
    const markdown = renderMarkdown('search', rest)
    expect(markdown).not.toContain('Sponsored')
    expect(markdown).not.toContain('## Answer')
    expect(markdown).not.toContain('## Knowledge graph')
    expect(markdown.startsWith('# Search: espresso machine\n\n## Results\n\n1. [The 6 Best')).toBe(true)
  })

  test('an empty page says so instead of printing empty sections', () => {
    const body = { request: { q: 'zzqqxv' }, results: [], meta: { engine: 'google', credits_used: 0, cached: false } }
    expect(renderMarkdown('search', body)).toBe('# Search: zzqqxv\n\nNo results.\n\n---\n\nEngine: google · Credits used: 0 · Cached: no\n')
  })

  test('the footer says when a result came from the cache and when the parse was partial', () => {
    const body = searchBody()
    body.meta = { ...body.meta, cached: true, cached_at: '2024-03-20T18:02:11Z', credits_used: 0.5, parse_quality: 'partial' }
    expect(renderMarkdown('search', body).split('\n').at(-2)).toBe(
      'Engine: google · Credits used: 0.5 · Cached: yes, from 2024-03-20T18:02:11Z · ' + 'Partial: some parts of the page could not be parsed',
    )
  })

  test('answer box with only a snippet, and a knowledge graph with a website', () => {
    const body = searchBody()
    body.answer_box = { type: 'featured_snippet', snippet: '1. Grind fine. 2. Tamp.', link: 'https://a.example/x' }
    body.knowledge_graph = { title: 'La Marzocco', website: 'https://lamarzocco.com/' }
    const markdown = renderMarkdown('search', body)
    expect(markdown).toContain('## Answer\n\n1\\. Grind fine. 2. Tamp.\n\nSource: [a.example](https://a.example/x)\n\n')
    expect(markdown).toContain('## Knowledge graph: La Marzocco\n\n- **Website:** [lamarzocco.com](https://lamarzocco.com/)\n\n')
  })
})

describe('renderMarkdown: escaping', () => {
  const render = (result: Record<string, unknown>) => renderMarkdown('search', { request: { q: 'x' }, results: [{ position: 1, ...result }], meta: {} })

  const itemLines = (markdown: string) => markdown.split('\n\n').slice(2, -2)

  test('brackets, emphasis, code, HTML and entities in titles cannot become Markdown', () => {
    const markdown = render({
      title: '[Deal] *50%* off `today` <img src=x> &amp; __more__ ~~old~~ a\\b',
      link: 'https://shop.example/deal',
    })
    expect(itemLines(markdown)[0]).toBe(
      '1. [\\[Deal\\] \\*50%\\* off \\`today\\` \\<img src=x> \\&amp; \\_\\_more\\_\\_ \\~\\~old\\~\\~ a\\\\b](https://shop.example/deal) — shop.example',
    )
  })

  test('snake_case and URLs in text keep their underscores; AT&T keeps its ampersand', () => {
    const markdown = render({ title: 'use snake_case at AT&T', link: 'https://a.example/' })
    expect(itemLines(markdown)[0]).toBe('1. [use snake_case at AT&T](https://a.example/) — a.example')
  })

  test.each([
    ['# Heading-like snippet', '\\# Heading-like snippet'],
    ['## two', '\\## two'],
    ['#hashtag stays', '#hashtag stays'],
    ['> quoted', '\\> quoted'],
    ['- dash list', '\\- dash list'],
    ['+ plus list', '\\+ plus list'],
    ['---', '\\---'],
    ['-5 °C outside', '-5 °C outside'],
    ['2024. A year', '2024\\. A year'],
    ['3) third', '3\\) third'],
    ['3.5 stars', '3.5 stars'],
    ['line one\n\n# line two', 'line one # line two'],
  ])('a snippet starting %j cannot open a block', (snippet, expected) => {
    const markdown = render({ title: 'T', link: 'https://a.example/', snippet })
    expect(itemLines(markdown)[1]).toBe(`   ${expected}`)
  })

  test('URLs: parentheses, spaces and pipes are encoded; other schemes lose their link', () => {
    expect(itemLines(render({ title: 'P', link: 'https://a.example/x (y)|z' }))[0]).toBe('1. [P](https://a.example/x%20%28y%29%7Cz) — a.example')
    expect(itemLines(render({ title: 'Evil', link: 'javascript:alert(1)', domain: 'evil.example' }))[0]).toBe('1. Evil — evil.example')
    expect(itemLines(render({ title: 'Split', link: 'https://a.example/x\n# injected' }))[0]).toBe('1. Split')
  })

  test('never prints undefined, null or NaN for missing or malformed values', () => {
    const body = {
      request: { q: null },
      results: [{ position: 'one', title: 'Only a title', link: null, date: undefined, snippet: Number.NaN }],
      people_also_ask: [{ question: 'Q?', snippet: null, link: undefined }, null, 'junk'],
      related_searches: [{ query: null }],
      knowledge_graph: { title: null },
      answer_box: { answer: undefined },
      top_stories: [{ title: 'Story', source: null, date: null, link: undefined }],
      places: [{ title: 'Place', rating: null, rating_count: 12, address: null }],
      meta: { engine: null, credits_used: null, cached: null },
    }
    const markdown = renderMarkdown('search', body)
    expect(markdown).not.toMatch(/undefined|null|NaN|\[object/)
    expect(markdown).toBe(
      [
        '# Search',
        '## Results',
        '1. Only a title',
        '## People also ask',
        '- **Q?**',
        '## Top stories',
        '- Story',
        '## Places',
        '1. **Place**',
        '---',
        'Cached: no\n',
      ].join('\n\n'),
    )
  })
})

describe('format availability', () => {
  test('every vertical but autocomplete and lens has Markdown', () => {
    expect([...MARKDOWN_VERTICALS].sort()).toEqual(['images', 'maps', 'news', 'patents', 'places', 'reviews', 'scholar', 'search', 'shopping', 'videos'])
  })

  test('format=markdown on autocomplete and lens is invalid_request naming the endpoint', () => {
    expect(() => assertFormatAllowed('autocomplete', 'markdown')).toThrow(
      new ApiError('invalid_request', 'format=markdown is not available on /v1/autocomplete; use json or compact'),
    )
    expect(() => assertFormatAllowed('lens', 'markdown')).toThrow('format=markdown is not available on /v1/lens; it returns JSON only')
    expect(() => renderMarkdown('autocomplete', { request: {}, results: [], meta: {} })).toThrow(ApiError)
  })

  test('json and compact are allowed everywhere, markdown where a layout exists', () => {
    expect(() => assertFormatAllowed('autocomplete', 'compact')).not.toThrow()
    expect(() => assertFormatAllowed('lens', 'json')).not.toThrow()
    expect(() => assertFormatAllowed('reviews', 'markdown')).not.toThrow()
  })
})
