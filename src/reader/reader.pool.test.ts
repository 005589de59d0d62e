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
    expect(pool.counts()).toEqual({ onThreads: 3, inline: 0, recycled: 0 })
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

test('a big page read before the threads are up waits for them: read on the main thread, it would hold the event loop', async () => {
  const pool = createReaderPool(1)
  try {
    const big: PageReadTask = {
      ...htmlTask('markdown'),
      input: { ...htmlTask('markdown').input, text: html.replace('</body>', `<!--${'x'.repeat(200_000)}--></body>`) },
    }
    const [small, read] = await Promise.all([pool.read(htmlTask('markdown')), pool.read(big)])
    expect(read.content).toBe(small.content)
    expect(pool.counts()).toEqual({ onThreads: 1, inline: 1, recycled: 0 })
  } finally {
    await pool.close()
  }
})

test('TRAWL_READER_THREADS=0 and a closed pool read on the main thread', async () => {
  const none = createReaderPool(0)
  expect(none.threads).toBe(0)
  expect((await none.read(htmlTask('markdown'))).content).toContain('Mojang')
  expect(none.counts()).toEqual({ onThreads: 0, inline: 1, recycled: 0 })
  const closed = createReaderPool(1)
  await closed.close()
  expect((await closed.read(htmlTask('markdown'))).content).toContain('Mojang')
  expect(closed.counts()).toEqual({ onThreads: 0, inline: 1, recycled: 0 })
})

describe('a thread whose heap ends a read above the mark is replaced', () => {
  // A 1 MB mark: every thread is above it after any read (a warm one holds about 22 MB), so each read retires its thread.
  const warnings: { obj: { heapMb: number; markMb: number }; msg: string }[] = []
  const log = { warn: (obj: { heapMb: number; markMb: number }, msg: string) => warnings.push({ obj, msg }) }
  const pool = createReaderPool(1, { threadMemoryMb: 1, log: log as never })
  afterAll(() => pool.close())

  test('each read answers as on the main thread, on a thread, and its thread is replaced after it', async () => {
    expect(await pool.ready()).toBe(true)
    const before = pool.counts()
    const expected = await readPageContent(htmlTask('markdown'))
    for (let i = 0; i < 3; i++) expect(await pool.read(htmlTask('markdown'))).toEqual(expected)
    const after = pool.counts()
    // Not one read fell back to the main thread: the answer is posted before the thread ends, and
    // the next read, sent to the ending thread, runs again on its replacement.
    expect({ onThreads: after.onThreads - before.onThreads, inline: after.inline - before.inline }).toEqual({ onThreads: 3, inline: 0 })
    expect(after.recycled - before.recycled).toBe(3)
    expect(warnings.at(-1)).toMatchObject({ obj: { markMb: 1 }, msg: expect.stringContaining('memory mark') })
    expect(warnings.at(-1)!.obj.heapMb).toBeGreaterThan(1)
  })

  test('reads queued behind a retiring thread are read, and retirements are not failures: the pool is not given up', async () => {
    const expected = await readPageContent(htmlTask('text'))
    const reads = await Promise.all(Array.from({ length: 8 }, () => pool.read(htmlTask('text'))))
    expect(reads.every((r) => r.content === expected.content)).toBe(true)
    const before = pool.counts()
    await pool.read(htmlTask('text'))
    const after = pool.counts()
    expect({ onThreads: after.onThreads - before.onThreads, recycled: after.recycled - before.recycled }).toEqual({ onThreads: 1, recycled: 1 })
    expect(warnings.every((w) => w.msg.includes('memory mark'))).toBe(true)
  })

  test('a page that errors still retires its thread, and the error is the page error', async () => {
    const broken = {
      input: { url: 'https://example.com/doc.pdf', contentType: 'pdf' as const, body: Buffer.from('%PDF-1.4 not really') },
      format: 'text' as const,
    }
    const before = pool.counts().recycled
    expect(await pool.read(broken).catch((e) => e)).toBeInstanceOf(ApiError)
    expect(pool.counts().recycled - before).toBe(1)
  })
})

test('under the default mark (512 MB) threads are kept: ordinary reads retire none', async () => {
  const pool = createReaderPool(1)
  try {
    expect(await pool.ready()).toBe(true)
    for (let i = 0; i < 3; i++) await pool.read(htmlTask('markdown'))
    expect(pool.counts()).toMatchObject({ onThreads: 3, recycled: 0 })
  } finally {
    await pool.close()
  }
})
