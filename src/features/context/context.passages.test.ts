import { describe, expect, test } from 'vitest'
import { chunkPage, MAX_CHUNK_TOKENS } from '../../text/markdown-chunks.ts'
import { countTokensNow as countTokens } from '../../text/token-count.ts'
import { type ContextPage, selectPassages } from './context.passages.ts'

/** A paragraph of `n` distinct sentences on `topic`, about 14 tokens each. */
const paragraph = (topic: string, n: number, seed = 0) =>
  Array.from({ length: n }, (_, i) => `Sentence ${seed + i} tells the reader one more plain fact about ${topic} and nothing else.`).join(' ')

const page = (position: number, markdown: string, title: string | null = `Page ${position}`): ContextPage => ({
  url: `https://example.com/${position}`,
  title,
  position,
  markdown,
})

describe('chunkPage', () => {
  test('chunks are trimmed slices in page order, cut at headings, about 100 to 300 tokens', async () => {
    const md = [
      '# Title',
      paragraph('history', 8),
      paragraph('history', 8, 100),
      '## Second section',
      paragraph('grinders', 10),
      paragraph('grinders', 10, 200),
      paragraph('grinders', 10, 300),
      '## Short one',
      'Only a line.',
    ].join('\n\n')
    const chunks = await chunkPage(md)
    let last = 0
    for (const c of chunks) {
      const text = md.slice(c.start, c.end)
      expect(text).toBe(text.trim())
      expect(c.start).toBeGreaterThanOrEqual(last)
      last = c.end
      expect(countTokens(text)).toBeLessThanOrEqual(MAX_CHUNK_TOKENS * 1.2)
    }
    // A heading starts the chunk it heads, and names it.
    const second = chunks.find((c) => md.slice(c.start, c.end).startsWith('## Second section'))!
    expect(second.heading).toBe('Second section')
    expect(second.headings).toEqual(['Title', 'Second section'])
    // The section's later chunks keep its heading for ranking.
    const after = chunks[chunks.indexOf(second) + 1]!
    expect(after.heading).toBe('Second section')
    // A heading never ends a chunk alone: the short last section is one chunk with its line.
    expect(md.slice(chunks.at(-1)!.start, chunks.at(-1)!.end)).toBe('## Short one\n\nOnly a line.')
    const sizes = chunks.slice(0, -1).map((c) => countTokens(md.slice(c.start, c.end)))
    for (const size of sizes) expect(size).toBeGreaterThanOrEqual(80)
  })

  test('a paragraph longer than a chunk is cut at sentence ends; fenced code keeps its blank lines', async () => {
    const long = paragraph('espresso', 60)
    const code = '```\nline one\n\nline two\n```'
    const md = `${long}\n\n${code}`
    const chunks = await chunkPage(md)
    expect(chunks.length).toBeGreaterThan(2)
    for (const c of chunks.slice(0, -1)) expect(md.slice(c.start, c.end)).toMatch(/\.$/)
    expect(md.slice(chunks.at(-1)!.start, chunks.at(-1)!.end)).toContain(code)
  })

  test('offsets are JavaScript string indices, astral characters included', async () => {
    const md = `## Emoji 😀 section\n\n${paragraph('coffee ☕ and 😀', 5)}`
    for (const c of await chunkPage(md)) expect(md.slice(c.start, c.end).length).toBe(c.end - c.start)
    const [first] = await chunkPage(md)
    expect(md.slice(first!.start, first!.end)).toContain('😀 section')
  })
})

describe('selectPassages', () => {
  const pages = [
    page(1, ['# Coffee', paragraph('the history of trade', 10), '## Grind size', paragraph('espresso grind size', 6)].join('\n\n'), 'Coffee'),
    page(2, ['# Tea', paragraph('tea leaves', 12)].join('\n\n'), 'Tea'),
    page(3, ['## Espresso', paragraph('espresso machines', 8), paragraph('milk foam', 8)].join('\n\n'), 'Espresso guide'),
  ]

  test('best first, within the budget, each passage exactly its slice with exact tokens', async () => {
    const sel = await selectPassages(pages, 'espresso grind size', 4000)
    expect(sel.passages.length).toBeGreaterThan(0)
    expect(sel.passages[0]).toMatchObject({ position: 1, heading: 'Grind size', title: 'Coffee' })
    const scores = sel.passages.map((p) => p.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    for (const p of sel.passages) {
      const source = pages.find((x) => x.position === p.position)!
      expect(source.markdown.slice(p.start, p.end)).toBe(p.text)
      expect(p.tokens).toBe(countTokens(p.text))
    }
    expect(sel.tokensUsed).toBe(sel.passages.reduce((n, p) => n + p.tokens, 0))
    // Tea says nothing of espresso, grind or size.
    expect(sel.passages.some((p) => p.position === 2)).toBe(false)
  })

  test('deterministic: the same answer every time and whatever order the pages come in', async () => {
    const a = await selectPassages(pages, 'espresso grind size', 4000)
    const b = await selectPassages([...pages].reverse(), 'espresso grind size', 4000)
    expect(b).toEqual(a)
  })

  test('the budget is a ceiling; what did not fit is reported as truncated', async () => {
    const many = [page(1, Array.from({ length: 12 }, (_, i) => `## Espresso part ${i}\n\n${paragraph(`espresso shot ${i}`, 8, i * 10)}`).join('\n\n'))]
    const all = await selectPassages(many, 'espresso shot', 50_000)
    expect(all.truncated).toBe(false)
    const some = await selectPassages(many, 'espresso shot', 500)
    expect(some.tokensUsed).toBeLessThanOrEqual(500)
    expect(some.truncated).toBe(true)
    expect(some.passages.length).toBeLessThan(all.passages.length)
  })

  test('a paragraph syndicated on several pages is given once, with the rest of each page still available', async () => {
    const shared = 'Espresso is brewed by forcing hot water through finely ground coffee at about nine bars of pressure for twenty five to thirty seconds.'
    const syndicated = [
      page(1, `# One\n\n${paragraph('espresso roasting', 4)}\n\n${shared}\n\n${paragraph('espresso cups', 4, 50)}`),
      page(2, `# Two\n\n${shared}\n\n${paragraph('espresso crema', 4, 80)}`),
      page(3, `# Three\n\nAs reported elsewhere: ${shared}`),
    ]
    // "brewing" meets "brewed" through its stem.
    const sel = await selectPassages(syndicated, 'brewing pressure and crema', 4000)
    expect(sel.passages.filter((p) => p.text.includes('nine bars of pressure')).length).toBe(1)
    expect(sel.duplicates).toBeGreaterThan(0)
    expect(sel.passages.some((p) => p.text.includes('espresso crema'))).toBe(true)
  })

  test('headings and titles weigh in: the same text under a matching heading ranks first', async () => {
    const text = paragraph('a method', 6)
    const sel = await selectPassages([page(1, `## Unrelated\n\n${text} Grinder.`), page(2, `## Burr grinder\n\n${text} Grinder.`)], 'burr grinder', 4000)
    expect(sel.passages[0]!.position).toBe(2)
  })

  test('no page: no passage; no match: the lead of each page, in result order', async () => {
    expect((await selectPassages([], 'x', 1000)).passages).toEqual([])
    const leads = await selectPassages(pages, 'zeppelin', 1000)
    expect(leads).toMatchObject({ ranking: 'leads', truncated: false })
    expect(leads.passages.map((p) => [p.position, p.start, p.score])).toEqual([
      [1, 0, 0],
      [2, 0, 0],
      [3, 0, 0],
    ])
    // Only tiny fragments: the page's first chunk all the same.
    expect((await selectPassages([page(1, 'Advertisement\n\nEspresso.')], 'espresso', 1000)).passages.map((p) => p.text)).toEqual([
      'Advertisement\n\nEspresso.',
    ])
  })

  test('word forms and WordNet: a stem, a derived form and a synonym match; stop words do not', async () => {
    const forms = [
      page(1, `## Output\n\n${paragraph('the economic growth of China', 5)}`),
      page(2, `## Staff\n\n${paragraph('how the vacancies were filled', 5)}`),
      page(3, `## Sweat\n\n${paragraph('why athletes sweat so much', 5)}`),
    ]
    expect((await selectPassages(forms, "How is China's economy growing?", 4000)).passages[0]!.position).toBe(1)
    expect((await selectPassages(forms, 'vacant posts', 4000)).passages[0]!.position).toBe(2)
    expect((await selectPassages(forms, 'do runners perspire', 4000)).passages[0]!.position).toBe(3)
    // Only stop words and a possessive's s in common: nothing matches, the leads are given.
    expect((await selectPassages(forms, "What's the", 4000)).ranking).toBe('leads')
  })

  test('one page takes at most 60 % of the budget while another has relevant passages waiting; then what is left', async () => {
    const big = page(1, Array.from({ length: 8 }, (_, i) => `## Espresso part ${i}\n\n${paragraph(`espresso shot timing ${i}`, 9, i * 10)}`).join('\n\n'))
    const other = page(2, `## Shots\n\n${paragraph('espresso shot timing', 3, 500)} ${paragraph('milk', 6, 600)}`)
    const sel = await selectPassages([big, other], 'espresso shot timing', 1000)
    // Every chunk of the big page ranks above the other page's, which is given all the same.
    expect(sel.passages.at(-1)!.position).toBe(2)
    const fromBig = sel.passages.filter((p) => p.position === 1)
    // Its passages past 600 tokens waited for the other page's, then filled what was left.
    expect(fromBig.slice(0, -1).reduce((n, p) => n + p.tokens, 0)).toBeLessThanOrEqual(600)
    // Best first all the same.
    const scores = sel.passages.map((p) => p.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    // Alone, the page fills the budget.
    expect((await selectPassages([big], 'espresso shot timing', 1000)).tokensUsed).toBeGreaterThan(600)
  })

  test('clutter is demoted: a teaser list of links and credit lines ranks under prose with the same words', async () => {
    const teasers = Array.from({ length: 6 }, (_, i) => `- [Espresso grinder review number ${i}](https://example.com/r/${i})`).join('\n')
    const md = `${paragraph('espresso grinders', 6)} The best espresso grinder review is this one.\n\n## Related\n\n${teasers}`
    const sel = await selectPassages([page(1, md)], 'espresso grinder review', 4000)
    expect(sel.passages[0]!.text).toContain('Sentence 0')
  })

  test('truncated and tokens_relevant: what a larger budget would hold', async () => {
    const many = [page(1, Array.from({ length: 12 }, (_, i) => `## Espresso part ${i}\n\n${paragraph(`espresso shot ${i}`, 8, i * 10)}`).join('\n\n'))]
    const all = await selectPassages(many, 'espresso shot', 50_000)
    const some = await selectPassages(many, 'espresso shot', 500)
    expect(some.truncated).toBe(true)
    expect(some.tokensRelevant).toBeGreaterThan(500)
    expect((await selectPassages(many, 'espresso shot', some.tokensRelevant + 50)).truncated).toBe(false)
    expect(all.tokensRelevant).toBe(all.tokensUsed)
  })
})
