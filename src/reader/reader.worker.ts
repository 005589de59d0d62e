import { getHeapStatistics } from 'node:v8'
import { workerData } from 'node:worker_threads'
import { ApiError } from '../errors.ts'
import { type PageContent, type PageReadTask, readPageContent } from './reader.core.ts'

/** A task's answer across the thread boundary: errors as data, so a rejection always means the pool failed. */
export type ThreadAnswer = ({ ok: true; page: PageContent } | { ok: false; message: string; apiError?: { code: string; retryAfterSeconds?: number } }) & {
  /** Set when the thread ends after this answer: its heap (MB) was above the mark. */
  retiredAtMb?: number
}

/** What the pool hands each thread (piscina's workerData). */
export interface ReaderThreadData {
  /** Heap (MB) above which a thread ends after its answer and piscina starts a fresh one. */
  threadMemoryMb: number
}

/** A retiring thread's exit code: the pool tells it from a thread that died, and re-runs the task it was sent meanwhile. */
export const RETIRED_EXIT_CODE = 75

/** Runs on a reader thread: one page read (reader.core.ts). */
export async function readOnThread(task: PageReadTask): Promise<ThreadAnswer> {
  const answer = await readAnswer(task)
  // V8 keeps the heap a deep or huge page grew (hundreds of MB), and a thread lives as long as the
  // server: above the mark, the thread ends once this answer is posted (the pool runs with atomics
  // 'async', so piscina posts it and returns to the event loop before this immediate runs).
  const heapMb = getHeapStatistics().total_heap_size / 2 ** 20
  const mark = (workerData as ReaderThreadData | undefined)?.threadMemoryMb
  if (mark !== undefined && heapMb > mark) {
    setImmediate(() => process.exit(RETIRED_EXIT_CODE))
    return { ...answer, retiredAtMb: Math.round(heapMb) }
  }
  return answer
}

async function readAnswer(task: PageReadTask): Promise<ThreadAnswer> {
  // Structured clone turns a Buffer into a plain Uint8Array: give the reader its Buffer back.
  const body = task.input.body ? Buffer.from(task.input.body.buffer, task.input.body.byteOffset, task.input.body.byteLength) : Buffer.alloc(0)
  try {
    return { ok: true, page: await readPageContent({ ...task, input: { ...task.input, body } }) }
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, message: err.message, apiError: { code: err.code, retryAfterSeconds: err.opts.retryAfterSeconds } }
    return { ok: false, message: err instanceof Error ? err.message : String(err) }
  }
}
