import { ApiError } from '../errors.ts'
import { type PageContent, type PageReadTask, readPageContent } from './reader.core.ts'

/** A task's answer across the thread boundary: errors as data, so a rejection always means the pool failed. */
export type ThreadAnswer = { ok: true; page: PageContent } | { ok: false; message: string; apiError?: { code: string; retryAfterSeconds?: number } }

/** Runs on a reader thread: one page read (reader.core.ts). */
export async function readOnThread(task: PageReadTask): Promise<ThreadAnswer> {
  // Structured clone turns a Buffer into a plain Uint8Array: give the reader its Buffer back.
  const body = task.input.body ? Buffer.from(task.input.body.buffer, task.input.body.byteOffset, task.input.body.byteLength) : Buffer.alloc(0)
  try {
    return { ok: true, page: await readPageContent({ ...task, input: { ...task.input, body } }) }
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, message: err.message, apiError: { code: err.code, retryAfterSeconds: err.opts.retryAfterSeconds } }
    return { ok: false, message: err instanceof Error ? err.message : String(err) }
  }
}
