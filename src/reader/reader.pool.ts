import type { FastifyBaseLogger } from 'fastify'
import type { Piscina } from 'piscina'
import { ApiError, type ErrorCode } from '../errors.ts'
import { metrics } from '../metrics/metrics.ts'
import { readerWorkerFile, requireOnFirstUse } from '../paths.ts'
import { type PageContent, type PageReadTask, readPageContent } from './reader.core.ts'
import { RETIRED_EXIT_CODE, type ReaderThreadData, type ThreadAnswer } from './reader.worker.ts'

/**
 * Page reading (parse, extract, Markdown, links) on worker threads, so that every core reads and
 * the event loop stays free for fetches and requests. The pool starts at its first task (`trawl
 * worker` starts it at once, `serve` at the first page read: docs/crawl.md) and stops with the
 * services; until its threads have loaded the reader and read a warm-up page (under a second),
 * pages are read on the main thread rather than wait. When it is full (more than 8 tasks waiting
 * per thread) or a thread fails, the page is read on the main thread too: slower, never lost.
 * `threads: 0` reads there always. A thread whose heap ends a read above `threadMemoryMb` posts its
 * answer and exits, and piscina starts a fresh one (V8 does not hand back what a deep page grew).
 */
export interface ReaderPool {
  read(task: PageReadTask): Promise<PageContent>
  /** Threads used, 0 when every read runs on the main thread. */
  readonly threads: number
  /** Pages read on a thread and on the main thread so far, and threads replaced for their memory. */
  counts(): { onThreads: number; inline: number; recycled: number }
  /** Starts the threads; true once one has loaded the reader, false when they cannot. */
  ready(): Promise<boolean>
  /** Reads the warm-up page on the calling thread too: the pages read here before the threads are up are not read by cold code. */
  warmInline(): Promise<void>
  close(): Promise<void>
}

const QUEUE_PER_THREAD = 8
/** Pages up to this size are read on the main thread while the threads start (50 ms at most). */
const INLINE_WHILE_COLD_BYTES = 128 * 1024
const taskBytes = (task: PageReadTask) => Math.max(task.input.text?.length ?? 0, task.input.body?.byteLength ?? 0)
/** Required at the pool's start, not at the server's: a server that reads no page does without it. */
const piscina = requireOnFirstUse<typeof import('piscina')>('piscina')

/**
 * An article page with what most pages have (head metadata, navigation, sections, lists, a quote,
 * a table, a figure, a footer), read a few times by each new thread: a thread's first pages are read
 * by cold code, 3-7x slower, and at the start of a crawl every slot waits for the first page's links.
 */
function warmUpTask(): PageReadTask {
  const PROSE = 'A sentence of ordinary prose, long enough to be read as the article, with a comma and a full stop. '.repeat(3)
  const section = (i: number) =>
    `<h2>Part ${i}</h2><p>${PROSE} Some <a href="/articles/${i}">linked text</a>, <em>emphasis</em>, <strong>weight</strong> and <code>code</code>.</p><p>${PROSE}</p>` +
    `<ul><li>one</li><li><a href="/topics/${i}?utm_source=x#top">two</a></li></ul><blockquote><p>A quote ${i}.</p></blockquote>` +
    `<figure><img src="/img/${i}.jpg" alt="picture ${i}"><figcaption>Caption</figcaption></figure>` +
    `<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>${i}</td></tr></table>`
  const text =
    '<!doctype html><html lang="en"><head><title>Warm up</title><meta name="description" content="warm up">' +
    '<meta property="og:title" content="Warm up"><script type="application/ld+json">{"@type":"Article","datePublished":"2024-01-01"}</script></head>' +
    `<body><header><nav>${Array.from({ length: 8 }, (_, i) => `<a href="/section/${i}">Section ${i}</a>`).join(' ')}</nav></header>` +
    `<main><article><h1>Warm up</h1><p class="byline">By Someone, <time datetime="2024-01-01">1 Jan 2024</time></p>` +
    `${Array.from({ length: 6 }, (_, i) => section(i)).join('')}</article></main><footer><a href="/about">About</a></footer></body></html>`
  return {
    input: { url: 'http://warm.up/article', contentType: 'html', body: Buffer.alloc(0), text },
    format: 'markdown',
    includeLinks: true,
    discoverLinks: true,
  }
}
const WARM_UP_READS = 4

async function warmInline() {
  const warmUp = warmUpTask()
  for (let i = 0; i < WARM_UP_READS; i++) await readPageContent(warmUp)
}
/** After this many pool failures in a row (threads that will not start, say), the pool is given up. */
const FAILURES_TO_GIVE_UP = 3

/** Reads on the calling thread: `TRAWL_READER_THREADS=0`, and callers given no pool. */
export function inlineReaderPool(): ReaderPool {
  let inline = 0
  return {
    read: (task) => {
      inline++
      return readPageContent(task)
    },
    threads: 0,
    counts: () => ({ onThreads: 0, inline, recycled: 0 }),
    ready: async () => false,
    warmInline,
    close: async () => {},
  }
}

export const inlineReader = inlineReaderPool()

export interface ReaderPoolOptions {
  /** A thread whose heap ends a read above this many MB is replaced (TRAWL_READER_THREAD_MEMORY_MB). */
  threadMemoryMb?: number
  log?: Pick<FastifyBaseLogger, 'warn'>
}

/** The default mark (config.ts has the same): a warm reader thread's heap is about 22 MB, the 100,000-deep page of the hostile-pages test leaves 37. */
export const THREAD_MEMORY_MB = 512

/**
 * A retiring thread's exit reaches the pool after its answer, and the pool may hand it a task
 * meanwhile (the next in the queue, or the caller's next read): that task fails with this exit.
 */
const isRetiredExit = (err: unknown) => (err as Error)?.message === `worker exited with code: ${RETIRED_EXIT_CODE}`

/**
 * Runs a task, again when it was sent to a retiring thread. Each such rerun follows another
 * task's answer, so the tasks move on; past the bound, the caller reads the page on the main thread.
 */
async function runOnThread(pool: Piscina, task: PageReadTask, threads: number): Promise<ThreadAnswer> {
  for (let rerun = 0; ; rerun++) {
    try {
      return (await pool.run(task)) as ThreadAnswer
    } catch (err) {
      if (rerun >= threads * (QUEUE_PER_THREAD + 1) || !isRetiredExit(err)) throw err
    }
  }
}

export function createReaderPool(threads: number, opts: ReaderPoolOptions = {}): ReaderPool {
  if (threads <= 0) return inlineReaderPool()
  const { log, threadMemoryMb = THREAD_MEMORY_MB } = opts
  let pool: Piscina | null = null
  let closed = false
  let failures = 0
  let onThreads = 0
  let inline = 0
  let recycled = 0
  let warm: Promise<boolean> | null = null
  let isWarm = false
  const readInline = (task: PageReadTask) => {
    inline++
    return readPageContent(task)
  }
  const noteRetired = ({ retiredAtMb }: ThreadAnswer) => {
    if (retiredAtMb === undefined) return
    recycled++
    metrics.readerThreadRecycled()
    log?.warn({ heapMb: retiredAtMb, markMb: threadMemoryMb, recycled }, 'reader thread above its memory mark; replaced by a fresh one')
  }

  const start = () => {
    if (pool) return pool
    const { Piscina: Pool } = piscina()
    pool = new Pool({
      filename: readerWorkerFile().href,
      minThreads: threads,
      maxThreads: threads,
      maxQueue: threads * QUEUE_PER_THREAD,
      // Threads live as long as the server: starting one (tsx, the reader's modules) takes a while.
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: { threadMemoryMb } satisfies ReaderThreadData,
      // 'async': a thread waits for its next task with Atomics.waitAsync, on its event loop, where a
      // thread above the mark exits (reader.worker.ts); 'sync' (the default) would block it there.
      // As fast as 'sync' on bench:crawl (docs/crawl.md).
      atomics: 'async',
    })
    // A few pages per thread: the pool is used once a thread has loaded the reader and read them.
    const p = pool
    const warmUp = warmUpTask()
    const warmThread = async () => {
      for (let i = 0; i < WARM_UP_READS; i++) noteRetired(await runOnThread(p, warmUp, threads))
    }
    warm = Promise.any(Array.from({ length: threads }, warmThread)).then(
      () => (isWarm = true),
      (err: AggregateError) => {
        failures = FAILURES_TO_GIVE_UP
        log?.warn({ err: err.errors[0] }, 'reader threads did not start; reading on the main thread')
        return false
      },
    )
    return pool
  }

  const read = async (task: PageReadTask): Promise<PageContent> => {
    if (closed || failures >= FAILURES_TO_GIVE_UP) return readInline(task)
    const threadPool = start()
    // A small page is read here rather than wait for the threads to come up; a big one waits (under
    // a second): read here, 1 MB holds the event loop 150-400 ms.
    if (!isWarm && (taskBytes(task) <= INLINE_WHILE_COLD_BYTES || !(await warm))) return readInline(task)
    let answer: ThreadAnswer
    try {
      answer = await runOnThread(threadPool, task, threads)
      failures = 0
      onThreads++
    } catch (err) {
      // Queue full, or bounced off retiring threads: read here rather than wait. Anything else is
      // the pool failing, not the page.
      if (!/queue is at limit/i.test((err as Error).message ?? '') && !isRetiredExit(err)) {
        failures++
        log?.warn(
          { err, failures },
          failures >= FAILURES_TO_GIVE_UP ? 'reader threads failed; reading on the main thread' : 'reader thread failed; read on the main thread',
        )
      }
      return readInline(task)
    }
    noteRetired(answer)
    if (answer.ok) return answer.page
    if (answer.apiError) throw new ApiError(answer.apiError.code as ErrorCode, answer.message, { retryAfterSeconds: answer.apiError.retryAfterSeconds })
    throw new Error(answer.message)
  }

  return {
    read,
    threads,
    counts: () => ({ onThreads, inline, recycled }),
    warmInline,
    async ready() {
      if (closed) return false
      start()
      return (await warm) ?? false
    },
    async close() {
      closed = true
      const p = pool
      pool = null
      await p?.destroy()
    },
  }
}
