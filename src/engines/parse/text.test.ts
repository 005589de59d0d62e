import { describe, expect, it } from 'vitest'
import { random } from '../../../test/support/random.ts'
import { normText, trimmedLength } from './text.ts'

/** What normText was written as before it became one scan: the reference it must equal. */
const reference = (s: string) =>
  s
    .replace(/[\u200b-\u200f\u202a-\u202e\u2060\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim()

// Every kind of character the scan treats differently, and ordinary ones.
const ALPHABET = [
  ' ',
  '  ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u1680',
  '\u2003',
  '\u2028',
  '\u202f',
  '\u3000',
  '\ufeff',
  '\u200b',
  '\u200e',
  '\u202a',
  '\u2060',
  'a',
  'Z',
  'é',
  '中',
  '😀',
  '.',
]

describe('normText', () => {
  it('equals the replace-replace-trim it replaces, on 20,000 strings of every kind of space and mark', () => {
    const next = random(15)
    for (let n = 0; n < 20_000; n++) {
      let s = ''
      const length = Math.floor(next() * 12)
      for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)]
      expect(normText(s), JSON.stringify(s)).toBe(reference(s))
      expect(trimmedLength(s), JSON.stringify(s)).toBe(s.trim().length)
    }
  })

  it('returns clean strings as they are, and empty for nothing', () => {
    const clean = 'Coffee - Wikipedia'
    expect(normText(clean)).toBe(clean)
    expect(normText(null)).toBe('')
    expect(normText(undefined)).toBe('')
    expect(normText('  a\u200b b  ')).toBe('a b')
  })
})
