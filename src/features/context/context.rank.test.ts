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

describe('rankLexically: questions that ask for a measure', () => {
  const pages = [{ title: 'A court report' }, { title: 'Gardening' }]
  const context = 'The man who sent the threats was arrested at his home last spring, and the case went to a federal court.'
  const answer = 'The man could face up to 10 years in prison when he is sentenced, the prosecutors announced.'
  const garden = [
    chunk(1, 'Tomatoes need sun, water and a rich soil; stake them early so the stems do not break in the wind.'),
    chunk(1, 'Mulch keeps the soil moist and the weeds down through the hottest weeks of the summer season.'),
  ]

  test('"how long": the passage with a number and its unit comes first, though the question never says "years"', () => {
    const { scores } = rankLexically(pages, [chunk(0, context), chunk(0, answer), ...garden], 'How long could the man who sent the threats be locked up?', 'en')
    expect(scores[1]).toBeGreaterThan(scores[0]!)
  })

  test('a question that does not ask for a measure gets no such bonus', () => {
    const q = 'Why was the man who sent the threats arrested?'
    const { scores } = rankLexically(pages, [chunk(0, context), chunk(0, answer), ...garden], q, 'en')
    expect(scores[0]).toBeGreaterThan(scores[1]!)
  })

  test('a number without a unit, or a unit without a number, is not a measure', () => {
    const q = 'How long could the man who sent the threats be locked up?'
    const bare = 'The man could face up to 10 more charges, and years of appeals, the prosecutors announced.'
    const { scores } = rankLexically(pages, [chunk(0, context), chunk(0, bare), ...garden], q, 'en')
    expect(scores[0]).toBeGreaterThan(scores[1]!)
  })

  test('an amount written in one word ("$22.6bn") is a measure for "how much"', () => {
    const q = 'How much money is the space agency asking lawmakers for?'
    const intro = 'The space agency told lawmakers that its plans for the moon need more money than before.'
    const amount = 'Lawmakers are debating the agency budget request for $22.6bn, which the administrator defended.'
    const { scores } = rankLexically(pages, [chunk(0, intro), chunk(0, amount), ...garden], q, 'en')
    expect(scores[1]).toBeGreaterThan(scores[0]!)
  })
})
