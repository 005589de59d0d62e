import { afterAll, describe, expect, test } from 'vitest'
import { readFixture } from '../../test/support/fixtures.ts'
import { ApiError } from '../errors.ts'
import { type PageReadTask, readPageContent } from './reader.core.ts'
import { createReaderPool } from './reader.pool.ts'

const corpus = (rel: string) => readFixture(`corpora/${rel}`)
const URL_ = 'http://fakehost/test/page.html'
const html = corpus('readability-test-pages/test-pages/ars-1/source.html').toString('utf8')
const htmlTask = (format: PageReadTask['format']): PageReadTask => ({
  input: { url: URL_, contentType: 'html', body: Buffer.alloc(0), text: html },
  format,
  includeLinks: true,
  includeImages: true,
  discoverLinks: true,
})

describe('reader threads', () => {
  const pool = createReaderPool(1)
  afterAll(() => pool.close())

  test('a page read on a thread is the page read on the main thread, in every format', async () => {
    expect(await pool.ready()).toBe(true)
    for (const format of ['markdown', 'text', 'html'] as const) {
      const onThread = await pool.read(htmlTask(format))
      expect(onThread).toEqual(await readPageContent(htmlTask(format)))
      expect(onThread.content.length).toBeGreaterThan(1000)
      expect(onThread.page_links!.length).toBeGreaterThan(10)
    }
    expect(pool.counts()).toEqual({ onThreads: 3, inline: 0 })
  })

  test('PDF bytes cross to the thread; a broken PDF fails with the same ApiError as on the main thread', async () => {
    const pdf = {
      input: { url: 'https://example.com/doc.pdf', contentType: 'pdf' as const, body: corpus('pdfs-pypdf/resources/crazyones.pdf') },
      format: 'text' as const,
    }
    expect(await pool.read(pdf)).toEqual(await readPageContent(pdf))
    const broken = { ...pdf, input: { ...pdf.input, body: Buffer.from('%PDF-1.4 not really') } }
    const inline = await readPageContent(broken).catch((e) => e)
    const threaded = await pool.read(broken).catch((e) => e)
    expect(threaded).toBeInstanceOf(ApiError)
    expect({ code: threaded.code, message: threaded.message }).toEqual({ code: inline.code, message: inline.message })
  })

  test('more tasks than the queue holds: the overflow is read on the main thread, nothing fails', async () => {
    const before = pool.counts()
    const reads = await Promise.all(Array.from({ length: 30 }, () => pool.read(htmlTask('markdown'))))
    expect(new Set(reads.map((r) => r.content)).size).toBe(1)
    const after = pool.counts()
    expect(after.inline - before.inline).toBeGreaterThan(0)
    expect(after.onThreads - before.onThreads + after.inline - before.inline).toBe(30)
  })
})

test('pages read before the threads are up are read on the main thread; many of them do not keep the pool from starting', async () => {
  const pool = createReaderPool(1)
  try {
    const early = await Promise.all(Array.from({ length: 40 }, () => pool.read(htmlTask('markdown'))))
    expect(early.every((r) => r.content === early[0]!.content)).toBe(true)
    expect(await pool.ready()).toBe(true)
    await pool.read(htmlTask('markdown'))
    expect(pool.counts().onThreads).toBeGreaterThan(0)
  } finally {
    await pool.close()
  }
})

test('TRAWL_READER_THREADS=0 and a closed pool read on the main thread', async () => {
  const none = createReaderPool(0)
  expect(none.threads).toBe(0)
  expect((await none.read(htmlTask('markdown'))).content).toContain('Mojang')
  expect(none.counts()).toEqual({ onThreads: 0, inline: 1 })
  const closed = createReaderPool(1)
  await closed.close()
  expect((await closed.read(htmlTask('markdown'))).content).toContain('Mojang')
  expect(closed.counts()).toEqual({ onThreads: 0, inline: 1 })
})
