import { describe, expect, test } from 'vitest'
import { queryGroups } from './context.rank.ts'

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
})
