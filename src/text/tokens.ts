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
 * die, texts are counted on the calling thread: slower to answer, never wrong.
 */
const IDLE_MS = 5 * 60_000
/** Counts and trims waiting for the thread beyond this many are made on the calling thread. */
const MAX_QUEUE = 256

const piscina = requireOnFirstUse<typeof import('piscina')>('piscina')
let pool: Piscina | null = null
let failed = false

function thread(): Piscina | null {
  if (failed) return null
  if (!pool) {
    const { Piscina: Pool } = piscina()
    pool = new Pool({ filename: tokenThreadFile().href, minThreads: 0, maxThreads: 1, maxQueue: MAX_QUEUE, idleTimeout: IDLE_MS })
  }
  return pool
}

async function run<T extends TokenAnswer>(task: TokenTask, inline: () => T): Promise<T> {
  const threadPool = thread()
  if (!threadPool) return inline()
  try {
    return (await threadPool.run(task)) as T
  } catch (err) {
    // A full queue, or a thread ended by closeTokenThread meanwhile, answers here this once; a
    // thread that cannot start or dies is given up, once, with a warning in the log.
    if (threadPool === pool && !/queue is at limit/i.test((err as Error).message ?? '')) {
      failed = true
      process.emitWarning(`the token thread failed (${(err as Error).message}); tokens are counted on the main thread from now on`)
    }
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
