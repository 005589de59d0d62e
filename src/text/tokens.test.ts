import { createRequire } from 'node:module'
import { afterAll, describe, expect, it } from 'vitest'
import { countTokensNow, trimToTokensNow } from './token-count.ts'
import { closeTokenThread, countTokens, countTokensEach, countTokensOnce, trimToTokens } from './tokens.ts'

const TEXTS = ['', 'short', 'Plain English, with "quotes" and 1,234.56 numbers.\n\n'.repeat(50), `中文文本，带有标点符号。${'x'.repeat(3000)}`]
const loadedHere = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('o200k_base'))

afterAll(closeTokenThread)

describe('token counts on the token thread', () => {
  it('count as the counting itself does, without loading o200k on the calling thread', async () => {
    const counts = await countTokensEach(TEXTS)
    const one = await countTokens(TEXTS[2]!)
    expect(await countTokensEach([])).toEqual([])
    expect(loadedHere()).toBe(false)
    expect(counts).toEqual(TEXTS.map(countTokensNow))
    expect(one).toBe(countTokensNow(TEXTS[2]!))
    expect(loadedHere()).toBe(true) // countTokensNow, here: the check above can fail
  })

  it('trims to the same cut', async () => {
    for (const max of [1, 50, 10_000]) expect(await trimToTokens(TEXTS[2]!, max)).toEqual(trimToTokensNow(TEXTS[2]!, max))
  })

  it('remembers a count by key, making the text once', async () => {
    let made = 0
    const text = () => {
      made++
      return 'a cached reply'
    }
    expect(await countTokensOnce('key-1', text)).toBe(countTokensNow('a cached reply'))
    expect(await countTokensOnce('key-1', text)).toBe(countTokensNow('a cached reply'))
    expect(made).toBe(1)
  })
})

// Last in this file: it leaves the module counting on the calling thread.
describe('a token thread that cannot start', () => {
  it('is given up after three failures in a row, with a warning; the counts are right all along', async () => {
    await closeTokenThread()
    const bundled = globalThis as { trawlBundle?: { readerWorker: string; tokenThread: string } }
    bundled.trawlBundle = { readerWorker: 'file:///nonexistent/reader.cjs', tokenThread: 'file:///nonexistent/tokens.cjs' }
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.message)
    process.on('warning', onWarning)
    try {
      for (let i = 0; i < 4; i++) expect(await countTokens(TEXTS[2]!)).toBe(countTokensNow(TEXTS[2]!))
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings.filter((w) => w.startsWith('the token thread failed'))).toHaveLength(1)
    } finally {
      process.off('warning', onWarning)
      delete bundled.trawlBundle
    }
  })
})
