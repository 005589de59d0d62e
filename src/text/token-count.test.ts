import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { readFixture } from '../../test/support/fixtures.ts'
import { countTokensNow as countTokens, trimToTokensNow as trimToTokens } from './token-count.ts'
import { MAX_PIECE, pieces } from './token-pieces.ts'

// gpt-tokenizer itself, on the whole text at once: what the counts must equal.
const require = createRequire(import.meta.url)
const o200k = require('gpt-tokenizer/encoding/o200k_base') as typeof import('gpt-tokenizer/encoding/o200k_base')
const { O200K_TOKEN_SPLIT_REGEX } = require('gpt-tokenizer/encodingParams/constants') as typeof import('gpt-tokenizer/encodingParams/constants')
const AS_TEXT = { disallowedSpecial: new Set<string>() }
const exact = (text: string) => o200k.countTokens(text, AS_TEXT)

/** Where o200k's own split starts its chunks, and the longest chunk. */
function chunkStarts(text: string): { starts: Set<number>; longest: number } {
  const starts = new Set<number>()
  let longest = 0
  for (const m of text.matchAll(new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu'))) {
    starts.add(m.index)
    longest = Math.max(longest, m[0].length)
  }
  return { starts, longest }
}

function randomText(length: number, alphabet: string[], seed = 7): string {
  const out: string[] = []
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    out.push(alphabet[seed % alphabet.length]!)
  }
  return out.join('')
}

const HTML = readFixture('corpora/article-extraction-benchmark/html/042bb7b5fedab6eac7db576522b89b93904c237d344bcbe14a6a5ab7f7335856.html').toString('utf8')
const MIXED = [
  'Plain English, with "quotes", it\'s contractions, 1,234.56 numbers and a URL: https://example.com/a/b?c=d&e=f#g.\n\n',
  'Français : élève, garçon, œuvre — naïve « guillemets ».\n',
  'Русский текст, с пунктуацией! Ελληνικά γράμματα. עברית טקסט. نص عربي.\n',
  '中文文本，带有标点符号。日本語のテキスト、カタカナとひらがな。한국어 텍스트입니다.\n',
  'ภาษาไทยไม่มีช่องว่างระหว่างคำ हिन्दी पाठ। Emoji 😀👍🏽 and ZWJ 👨‍👩‍👧.\n',
  '| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconst x = 1;\n    indented();\n```\n\t\ttabs\r\nCRLF\u00a0nbsp\u3000ideographic space\n',
].join('')

describe('countTokens', () => {
  it('equals o200k on the whole text for ordinary text: pages, Markdown, many scripts', () => {
    // Texts counted well within the thread budget (a count past it is estimated; see below).
    for (const text of [MIXED, MIXED.repeat(20), HTML.slice(0, 30_000), HTML.slice(200_000, 230_000)]) expect(countTokens(text)).toBe(exact(text))
  })

  it('cuts ordinary text only where o200k starts a chunk', () => {
    for (const text of [MIXED.repeat(40), HTML]) {
      const { starts, longest } = chunkStarts(text)
      expect(longest).toBeLessThanOrEqual(MAX_PIECE)
      const ends = [...pieces(text)].map(([, end]) => end)
      expect(ends.length).toBeGreaterThan(1)
      for (const end of ends.slice(0, -1)) expect(starts.has(end)).toBe(true)
    }
  })

  it('covers the text exactly, and cuts a run longer than MAX_PIECE into pieces no longer (never inside a surrogate pair)', () => {
    const text = `Before. ${'a'.repeat(1000)} middle ${'😀'.repeat(700)} after.`
    const ranges = [...pieces(text)]
    expect(ranges[0]![0]).toBe(0)
    expect(ranges.at(-1)![1]).toBe(text.length)
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![1])
    for (const [start, end] of ranges) {
      const code = text.charCodeAt(end - 1)
      expect(code >= 0xd800 && code <= 0xdbff).toBe(false)
      if (text.slice(start, end).includes('a'.repeat(MAX_PIECE))) expect(end - start).toBeLessThanOrEqual(MAX_PIECE + 1)
    }
  })

  it('counts runs with no break within 0.2 % of o200k on the whole run', () => {
    const runs = [
      'a'.repeat(8192),
      randomText(8192, [...'abcdefghijklmnopqrstuvwxyz']),
      randomText(
        8192,
        Array.from({ length: 3000 }, (_, i) => String.fromCharCode(0x4e00 + i)),
      ),
      randomText(8192, [...'!"#$%&()*+,-./:;<=>?@[]^_`{|}~']),
      ' '.repeat(8192),
      '\n'.repeat(8192),
      '='.repeat(8192),
    ]
    for (const run of runs) {
      const want = exact(run)
      expect(Math.abs(countTokens(run) - want)).toBeLessThanOrEqual(Math.max(1, want * 0.002))
    }
  })

  it('treats special tokens written in a page as text', () => {
    const text = 'a page quoting <|endoftext|> and <|im_start|>'
    expect(countTokens(text)).toBe(exact(text))
    expect(countTokens(text.repeat(100))).toBe(exact(text.repeat(100)))
  })

  it('a text too long to count within the thread budget is estimated from samples of the rest, closely', () => {
    const big = HTML.repeat(3) // 1.8 MB of a real page: counted in part, the rest estimated
    expect(Math.abs(countTokens(big) / exact(big) - 1)).toBeLessThan(0.1)
  })

  it('answers for a megabyte of one word, close to the count of its pieces', () => {
    const word = randomText(1_000_000, [...'abcdefghijklmnopqrstuvwxyz'])
    let sum = 0
    for (const [start, end] of pieces(word.slice(0, 100_000))) sum += exact(word.slice(start, end))
    // Whatever part was counted and whatever estimated, the density is that of the text.
    expect(Math.abs(countTokens(word) / word.length / (sum / 100_000) - 1)).toBeLessThan(0.02)
  })
})

describe('trimToTokens', () => {
  /** The trim as it was: the whole text encoded at once. */
  function wholeTrim(text: string, max: number): string {
    const tokens = o200k.encode(text, AS_TEXT)
    if (tokens.length <= max) return text
    const cut = o200k.decode(tokens.slice(0, max))
    const floor = Math.floor(cut.length * 0.6)
    for (const boundary of ['\n\n', '\n', '. ', ' ']) {
      const at = cut.lastIndexOf(boundary)
      if (at >= floor) return cut.slice(0, at + (boundary === '. ' ? 1 : 0)).trimEnd()
    }
    return cut.trimEnd()
  }

  it('cuts ordinary text where encoding it whole would, and says the count when it did not cut', () => {
    for (const max of [100, 1000, 5000]) {
      for (const text of [MIXED.repeat(20), HTML]) {
        const got = trimToTokens(text, max)
        expect(got.text).toBe(wholeTrim(text, max))
        if (!got.trimmed) expect(got.tokens).toBe(exact(text))
      }
    }
    expect(trimToTokens('short', 100)).toEqual({ text: 'short', trimmed: false, tokens: 1 })
  })

  it('keeps a run with no break under max_tokens, and encodes only up to the cut', () => {
    const word = randomText(2_000_000, [...'abcdefghijklmnopqrstuvwxyz'])
    const got = trimToTokens(word, 1000)
    expect(got.trimmed).toBe(true)
    expect(word.startsWith(got.text)).toBe(true)
    expect(exact(got.text)).toBeLessThanOrEqual(1000)
    expect(got.text.length).toBeGreaterThan(1000)
  })
})
