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

  test('a rare word is defined by its first sense: its definition’s words weigh less than a synonym, and a common word has none', () => {
    const groups = queryGroups('What happened to the teenager who worked out?', 'en', 'en')
    const teen = groups.find((g) => g.own === 'teenag')!
    expect(teen.terms).toContainEqual({ stem: 'adolesc', weight: 0.35 })
    // "a juvenile between the onset of puberty and maturity"
    expect(teen.terms).toContainEqual({ stem: 'juvenil', weight: 0.3, loose: true })
    expect(teen.terms).toContainEqual({ stem: 'puberti', weight: 0.3, loose: true })
    // "work" has dozens of senses: none of its definitions is what the question means.
    expect(groups.find((g) => g.own === 'work')!.terms.some((t) => t.loose)).toBe(false)
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
    const chunks = [
      chunk(0, lead),
      chunk(0, answer),
      chunk(0, 'His friends kept his letters after he died, and they still meet every year in his town.'),
      ...other,
    ]
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

  test('a number written as a word is a number ("nearly eight hours")', () => {
    const q = 'How long did the two players need to finish the match?'
    const intro = 'The two players met in the final match of the tie, in front of a crowd that stayed to the end.'
    const answer = 'It took nearly eight hours to finish, the longest match the players had ever known.'
    const { scores } = rankLexically(pages, [chunk(0, intro), chunk(0, answer), ...garden], q, 'en')
    expect(scores[1]).toBeGreaterThan(scores[0]!)
  })

  test('a currency sign is a unit for "how much", not for "how big"', () => {
    const intro = 'The state campaign against the drug was widely mocked, and officials defended the campaign.'
    const cost = 'The campaign cost the state roughly $449,000, officials said when asked about the contract.'
    const much = rankLexically(pages, [chunk(0, intro), chunk(0, cost), ...garden], 'How much did the campaign cost the state?', 'en')
    expect(much.scores[1]).toBeGreaterThan(much.scores[0]!)
    const screen = 'The console screen is small, the buttons are fixed, and the console is cheaper than before.'
    const deal = 'The console is $10 off this week, and the bundle includes a game with the console.'
    const big = rankLexically(pages, [chunk(0, screen), chunk(0, deal), ...garden], 'How big is the console screen?', 'en')
    expect(big.scores[0]).toBeGreaterThan(big.scores[1]!)
  })

  test('"what time" is answered by a time of day ("1 p.m.")', () => {
    const q = 'What time will the second game between the two teams begin?'
    const other = 'The second game between the two teams will be the one everybody watches, the coach said.'
    const answer = 'The league moved the rematch in Pittsburgh from a 4:25 kickoff to a 1 p.m. start.'
    const { scores } = rankLexically(pages, [chunk(0, other), chunk(0, answer), ...garden], q, 'en')
    expect(scores[1]).toBeGreaterThan(scores[0]!)
  })
})
