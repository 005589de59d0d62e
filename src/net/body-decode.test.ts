import zlib from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { contentCodings, DecodedTooLargeError, decodeContent, MAX_CONTENT_CODINGS, tooManyCodings, unsupportedCoding } from './body-decode.ts'

const PAGE = Buffer.from('<p>A page, compressed.</p>'.repeat(200))

describe('Content-Encoding', () => {
  test('codings are listed in the order applied, identity dropped, case folded', () => {
    expect(contentCodings(' GZIP , identity,br ')).toEqual(['gzip', 'br'])
    expect(contentCodings(undefined)).toEqual([])
  })

  test(`more than ${MAX_CONTENT_CODINGS} codings are refused, named; unknown ones are named`, () => {
    expect(tooManyCodings(['gzip', 'br'], 'page')).toBeUndefined()
    expect(tooManyCodings(['gzip', 'gzip', 'gzip'], 'page')).toBe('page is sent with 3 content codings (gzip, gzip, gzip); at most 2 are decoded')
    expect(tooManyCodings(Array(2000).fill('gzip'), 'response')).toBe('response is sent with 2000 content codings (gzip, gzip, gzip, …); at most 2 are decoded')
    expect(unsupportedCoding(['gzip', 'x-gzip', 'deflate', 'br'])).toBeUndefined()
    expect(unsupportedCoding(['gzip', 'zstd'])).toBe('zstd')
  })

  test('gzip, br, deflate (zlib-wrapped or raw) and two stacked are undone', async () => {
    expect(await decodeContent(zlib.gzipSync(PAGE), ['gzip'], 1e6)).toEqual(PAGE)
    expect(await decodeContent(zlib.brotliCompressSync(PAGE), ['br'], 1e6)).toEqual(PAGE)
    expect(await decodeContent(zlib.deflateSync(PAGE), ['deflate'], 1e6)).toEqual(PAGE)
    expect(await decodeContent(zlib.deflateRawSync(PAGE), ['deflate'], 1e6)).toEqual(PAGE)
    expect(await decodeContent(zlib.brotliCompressSync(zlib.gzipSync(PAGE)), ['gzip', 'br'], 1e6)).toEqual(PAGE)
    expect(await decodeContent(Buffer.alloc(0), ['gzip'], 1e6)).toEqual(Buffer.alloc(0))
  })

  test('a truncated stream gives what it holds, as browsers show it', async () => {
    const gz = zlib.gzipSync(PAGE)
    const out = await decodeContent(gz.subarray(0, gz.length - 12), ['gzip'], 1e6)
    expect(PAGE.subarray(0, out.length)).toEqual(out)
  })

  test('the output is refused as soon as it passes the cap; a corrupt stream is zlib’s error', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(20_000_000))
    await expect(decodeContent(bomb, ['gzip'], 1_000_000)).rejects.toBeInstanceOf(DecodedTooLargeError)
    await expect(decodeContent(zlib.gzipSync(bomb), ['gzip', 'gzip'], 1_000_000)).rejects.toBeInstanceOf(DecodedTooLargeError)
    await expect(decodeContent(Buffer.from('not gzip at all'), ['gzip'], 1e6)).rejects.toMatchObject({ code: 'Z_DATA_ERROR' })
  })

  test('the read’s signal stops decoding: at once when it has fired, midway when it fires', async () => {
    const done = AbortSignal.abort(new Error('deadline'))
    await expect(decodeContent(zlib.gzipSync(PAGE), ['gzip'], 1e6, done)).rejects.toThrow('deadline')
    // 50 MB of output takes hundreds of turns of the thread pool: the abort lands between two of them.
    const big = zlib.gzipSync(Buffer.alloc(50_000_000))
    const controller = new AbortController()
    const decoding = decodeContent(big, ['gzip'], 100_000_000, controller.signal)
    setImmediate(() => controller.abort(new Error('deadline')))
    await expect(decoding).rejects.toThrow('deadline')
  })
})
