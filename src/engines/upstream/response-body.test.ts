import zlib from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { BodyTooLargeError, readBody, readTextBody, UnsupportedEncodingError } from './response-body.ts'

/** A response body as undici hands it over: chunks, and whether it was read or dropped. */
function bodyOf(bytes: Buffer) {
  const state = { read: false, destroyed: false }
  return {
    state,
    body: {
      async *[Symbol.asyncIterator]() {
        state.read = true
        for (let i = 0; i < bytes.length; i += 1000) yield bytes.subarray(i, i + 1000)
      },
      destroy() {
        state.destroyed = true
      },
    },
  }
}

const PAGE = Buffer.from('<p>An engine’s answer.</p>'.repeat(100))

describe('engine response bodies (the undici transport)', () => {
  test('one or two codings are undone', async () => {
    const { body } = bodyOf(zlib.brotliCompressSync(zlib.gzipSync(PAGE)))
    expect(await readTextBody(body, { 'content-encoding': 'gzip, br', 'content-type': 'text/html; charset=utf-8' }, 1e6)).toBe(PAGE.toString())
  })

  test('more than two codings are refused before the body is read, naming how many', async () => {
    const { body, state } = bodyOf(PAGE)
    const headers = { 'content-encoding': Array(2000).fill('gzip').join(', ') }
    const err = await readBody(body, headers, 1e6).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UnsupportedEncodingError)
    expect((err as Error).message).toBe('response is sent with 2000 content codings (gzip, gzip, gzip, …); at most 2 are decoded')
    expect(state).toEqual({ read: false, destroyed: true })
  })

  test('a coding we cannot undo is refused unread; decoded bytes past the cap are BodyTooLargeError', async () => {
    const zstd = bodyOf(PAGE)
    await expect(readBody(zstd.body, { 'content-encoding': 'zstd' }, 1e6)).rejects.toThrow('unsupported content-encoding zstd')
    expect(zstd.state.read).toBe(false)
    const bomb = bodyOf(zlib.gzipSync(Buffer.alloc(5_000_000)))
    await expect(readBody(bomb.body, { 'content-encoding': 'gzip' }, 100_000)).rejects.toBeInstanceOf(BodyTooLargeError)
  })

  test('the request’s signal stops the decoding', async () => {
    const { body } = bodyOf(zlib.gzipSync(PAGE))
    await expect(readBody(body, { 'content-encoding': 'gzip' }, 1e6, AbortSignal.abort(new Error('deadline')))).rejects.toThrow('deadline')
  })
})
