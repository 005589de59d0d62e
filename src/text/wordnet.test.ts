import { describe, expect, test } from 'vitest'
import { closeWordnet, loadWordnet, relatedWords } from './wordnet.ts'

test('loadWordnet builds the index with turns for the event loop, to the same words as a build at once', async () => {
  closeWordnet()
  let turns = 0
  const ticking = setInterval(() => turns++, 0)
  await loadWordnet()
  clearInterval(ticking)
  expect(turns).toBeGreaterThan(3)
  const loaded = relatedWords('growth')
  closeWordnet()
  expect(relatedWords('growth')).toEqual(loaded)
})

describe('relatedWords', () => {
  test('synonyms and derived forms of the most common senses, most common first', () => {
    const related = relatedWords('growth')
    expect(related).toContainEqual({ word: 'grow', kind: 'related', sense: 0 })
  })

  test('a rare word is defined: the words of its first sense’s gloss, its examples left out', () => {
    const gloss = relatedWords('airplane').filter((r) => r.kind === 'gloss')
    // "an aircraft that has a fixed wing and is powered by propellers or jets"
    expect(gloss.map((r) => r.word)).toEqual(expect.arrayContaining(['aircraft', 'wing', 'propellers', 'jets']))
    expect(gloss.every((r) => r.sense === 0)).toBe(true)
    // Synonyms are not repeated as gloss words.
    expect(gloss.map((r) => r.word)).not.toContain('aeroplane')
  })

  test('a word of many senses ("out", "begin") is not defined, nor a name ("Einstein": the physicist)', () => {
    expect(relatedWords('out').some((r) => r.kind === 'gloss')).toBe(false)
    expect(relatedWords('begin').some((r) => r.kind === 'gloss')).toBe(false)
    expect(relatedWords('einstein').some((r) => r.kind === 'gloss')).toBe(false)
  })
})
