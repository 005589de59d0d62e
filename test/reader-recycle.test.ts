import { afterAll, beforeAll, expect, test } from 'vitest'
import { type PathHandler, pathServer } from './support/path-server.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Deep pages grew the reader threads' heaps (three reads took the process from
 * 482 MB to 1.42 GB, never handed back). A reader thread whose heap ends a read above
 * TRAWL_READER_THREAD_MEMORY_MB is replaced; here the mark is 1 MB, so every read on a thread
 * retires it. The pages must still be read on the threads, whole, with /livez answering meanwhile.
 */

const article = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${body}</p></article></body></html>`
const PROSE = 'A paragraph of an ordinary article, long enough to be read as its content. '.repeat(40)
/** 100,000 nested elements, as in the hostile-pages test. */
const DEEP = article('Deep', `${'<div><span>'.repeat(50_000)}The text at the bottom of a very deep page. ${'</span></div>'.repeat(50_000)}`)

const html =
  (page: string): PathHandler =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)

let site: Awaited<ReturnType<typeof pathServer>>
let trawl: Trawl
let key = ''

beforeAll(async () => {
  site = await pathServer({ '/deep': html(DEEP), '/plain': html(article('Plain', PROSE)) })
  trawl = await startTrawl({ TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_BROWSER: 'off', TRAWL_READER_THREADS: '1', TRAWL_READER_THREAD_MEMORY_MB: '1' })
  // Reads before the threads are up are read on the main thread: wait for them.
  expect(await trawl.services.reader.ready()).toBe(true)
  ;({ key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 }))
})
afterAll(async () => {
  await trawl?.close()
  await site?.close()
})

const webpage = async (url: string) => {
  const res = await fetch(`${trawl.base}/v1/webpage`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  })
  return { status: res.status, body: (await res.json()) as { markdown?: string } }
}

/** Runs `work` while /livez is asked again and again; returns its value and /livez's statuses until it ended. */
async function whileLivez<T>(work: () => Promise<T>): Promise<{ value: T; during: number[] }> {
  let done = false
  const statuses: number[] = []
  const poller = (async () => {
    while (!done) {
      const res = await fetch(`${trawl.base}/livez`)
      await res.arrayBuffer()
      statuses.push(res.status)
    }
  })()
  try {
    const value = await work()
    return { value, during: [...statuses] }
  } finally {
    done = true
    await poller
  }
}

test('deep and plain pages on /v1/webpage with a 1 MB thread mark: each read retires its thread, every page is read whole on a thread, /livez answers throughout', async () => {
  const before = trawl.services.reader.counts()
  const urls = [1, 2].flatMap((n) => [`${site.base}/deep?n=${n}`, `${site.base}/plain?n=${n}`])
  const { value: reads, during } = await whileLivez(async () => {
    const out = []
    for (const url of urls) out.push(await webpage(url))
    // and a few at once, queued behind threads that are ending
    out.push(...(await Promise.all([3, 4].map((n) => webpage(`${site.base}/plain?n=${n}`)))))
    return out
  })
  expect(during.length).toBeGreaterThan(0)
  expect(during.every((s) => s === 200)).toBe(true)
  expect(reads.map((r) => r.status)).toEqual(Array(6).fill(200))
  for (const [i, r] of reads.entries()) {
    expect(r.body.markdown).toContain(i < 4 && i % 2 === 0 ? 'The text at the bottom of a very deep page.' : 'A paragraph of an ordinary article')
  }
  const after = trawl.services.reader.counts()
  // Every page was read on a thread (none fell back to the main thread), and each retired it.
  expect({ onThreads: after.onThreads - before.onThreads, inline: after.inline - before.inline }).toEqual({ onThreads: 6, inline: 0 })
  expect(after.recycled - before.recycled).toBe(6)
})
