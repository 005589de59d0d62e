import type { Piscina } from 'piscina'
import { requireOnFirstUse, tokenThreadFile } from '../paths.ts'
import { countTokensNow, type Trimmed, trimToTokensNow } from './token-count.ts'
import type { TokenAnswer, TokenTask } from './tokens.thread.ts'

export type { Trimmed } from './token-count.ts'

/**
 * Token counts (o200k_base, the GPT-4o family's tokenizer: what X-Tokens-Estimate and every
 * max_tokens mean) are made on one thread of their own, never on the event loop. Loading o200k's
 * tables holds a thread 0.1-0.5 s, and text built to be slow holds it up to token-count.ts's
 * budget for each count: on the main thread either kept `/livez` and every other request waiting
 * (docs/operations.md). The thread starts at the first count, so an idle server holds neither it
 * nor the tables (about 70 MB), and ends after IDLE_MS without a count. Should it fail to start or
 * keep failing, texts are counted on the calling thread: slower to answer, never wrong.
 */
const IDLE_MS = 5 * 60_000

const piscina = requireOnFirstUse<typeof import('piscina')>('piscina')
let pool: Piscina | null = null
/** Failures in a row; at FAILURES_TO_GIVE_UP (a thread that will not start, say) the thread is given up. */
let failures = 0
const FAILURES_TO_GIVE_UP = 3

/** A task this long on the thread means the thread is stuck (a count is 40 ms at most; a cut, seconds). */
const TASK_TIMEOUT_MS = 60_000

function thread(): Piscina | null {
  if (failures >= FAILURES_TO_GIVE_UP) return null
  if (!pool) {
    const { Piscina: Pool } = piscina()
    // No bound on the queue: what waits is text the requests hold anyway, and counted here instead it
    // would hold the event loop.
    const started = new Pool({ filename: tokenThreadFile().href, minThreads: 0, maxThreads: 1, idleTimeout: IDLE_MS })
    // A thread that cannot load its module is reported here, and the tasks sent to it never end.
    started.on('error', (err: Error) => giveUp(started, err))
    pool = started
  }
  return pool
}

function giveUp(threadPool: Piscina, err: Error) {
  if (pool !== threadPool) return
  failures = FAILURES_TO_GIVE_UP
  pool = null
  process.emitWarning(`the token thread failed (${err.message}); tokens are counted on the main thread from now on`)
  // Its waiting tasks are rejected, and counted on the calling thread (run).
  void threadPool.destroy()
}

async function run<T extends TokenAnswer>(task: TokenTask, inline: () => T): Promise<T> {
  const threadPool = thread()
  if (!threadPool) return inline()
  try {
    const answer = (await threadPool.run(task, { signal: AbortSignal.timeout(TASK_TIMEOUT_MS) })) as T
    failures = 0
    return answer
  } catch (err) {
    // A thread ended meanwhile (closeTokenThread, giveUp) answers here this once, as does one
    // failure; after FAILURES_TO_GIVE_UP in a row the thread is given up.
    if (pool === threadPool && ++failures >= FAILURES_TO_GIVE_UP) giveUp(threadPool, err as Error)
    return inline()
  }
}

/**
 * Tokens in `text`: exact but for runs longer than 256 characters with no break (a count up to
 * 0.17 % high there) and text past the thread's budget for one count (estimated from samples;
 * only text of hundreds of kilobytes, or text built to be slow). token-count.ts has the figures.
 */
export async function countTokens(text: string): Promise<number> {
  if (!text) return 0
  const [count] = await countTokensEach([text])
  return count!
}

/** The tokens of each text, in one trip to the thread: for many small texts (passages, chunks). */
export function countTokensEach(texts: readonly string[]): Promise<number[]> {
  if (texts.length === 0) return Promise.resolve([])
  return run({ count: texts }, () => texts.map(countTokensNow))
}

/**
 * Cuts `text` to at most `maxTokens` tokens, backing off to the last paragraph, line or sentence end
 * so a reader never gets half a word or half a table row.
 */
export function trimToTokens(text: string, maxTokens: number): Promise<Trimmed> {
  return run({ trim: text, maxTokens }, () => trimToTokensNow(text, maxTokens))
}

const memo = new Map<string, number>()

/**
 * countTokens for text that is the same every time under `key` but for a few bytes (a cached
 * response whose meta carries a new request id): counted once, then remembered; `text` is only
 * made on the first count.
 */
export async function countTokensOnce(key: string, text: () => string): Promise<number> {
  let count = memo.get(key)
  if (count === undefined) {
    count = await countTokens(text())
    if (memo.size >= 5000) memo.delete(memo.keys().next().value as string)
    memo.set(key, count)
  }
  return count
}

/** Ends the thread (at shutdown); a later count starts it again. */
export async function closeTokenThread(): Promise<void> {
  const threadPool = pool
  pool = null
  await threadPool?.destroy()
}
