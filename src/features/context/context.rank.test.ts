import { describe, expect, test } from 'vitest'
import { words } from '../../text/analyze.ts'
import { queryGroups, type RankChunk, rankLexically } from './context.rank.ts'

describe('queryGroups', () => {
  test('words are stemmed, stop words and modal verbs left out, and WordNet relates derived forms', () => {
    const groups = queryGroups('How will the economy of China grow?', 'en', 'en')
    expect(groups.map((g) => g.own)).toEqual(['economi', 'china', 'grow'])
    const grow = groups.find((g) => g.own === 'grow')!
    expect(grow.terms.map((t) => t.stem)).toContain('growth')
  })

  test('names (capitalised inside the question) are not expanded: John is not a toilet', () => {
    const groups = queryGroups('What did the novelist John Ford write about death?', 'en', 'en')
    const john = groups.find((g) => g.own === 'john')!
    expect(john.terms).toEqual([{ stem: 'john', weight: 1 }])
    expect(groups.find((g) => g.own === 'ford')!.terms).toHaveLength(1)
    // An ordinary word is still expanded.
    expect(groups.find((g) => g.own === 'death')!.terms.length).toBeGreaterThan(1)
  })

  test('"say" frames an English question (news says "said" everywhere): it is not one of its words', () => {
    expect(queryGroups('Which candidates does the author say are starved of attention?', 'en', 'en').map((g) => g.own)).toEqual([
      'candid',
      'author',
      'starv',
      'attent',
    ])
  })
})

const chunk = (page: number, text: string): RankChunk => ({ page, text, words: words(text), headings: [] })

describe('rankLexically: topic and focus', () => {
  const q = 'What illness was the science fiction writer John Ford diagnosed with as a child?'
  const lead = 'The science fiction writer John Ford wrote novels for thirty years, and his readers were loyal.'
  const answer = 'Ford grew up in Indiana, a sickly child: at nine he was diagnosed with diabetes, which shaped the rest of his life.'
  const other = [
    chunk(1, 'A cookbook page about bread, flour, water and salt, and how long the dough should rest before baking.'),
    chunk(1, 'Ovens differ: a baking stone helps the crust, and steam in the first minutes helps the loaf rise.'),
  ]

  test('the words the page’s lead holds (its subject) do not decide between its passages: the one that answers comes first', () => {
    const pages = [{ title: 'A forgotten writer' }, { title: 'Bread' }]
    const chunks = [chunk(0, lead), chunk(0, answer), chunk(0, 'His books went out of print after his death, and his friends kept his letters.'), ...other]
    const { scores } = rankLexically(pages, chunks, q, 'en')
    // With every word at full weight the lead scores twice what the answer does (13.9 against 6.7).
    expect(scores[1]).toBeGreaterThan(scores[0]!)
    expect(scores[0]).toBeGreaterThan(0)
    expect(scores.slice(2)).toEqual([0, 0, 0])
  })

  test('a lead that also holds the focus stays first', () => {
    const pages = [{ title: 'A forgotten writer' }, { title: 'Bread' }]
    const both = `${lead} He was diagnosed with diabetes as a child.`
    const { scores } = rankLexically(pages, [chunk(0, both), chunk(0, answer), ...other], q, 'en')
    expect(scores[0]).toBeGreaterThan(scores[1]!)
  })
})
