import { countTokensNow, type Trimmed, trimToTokensNow } from './token-count.ts'

/** What tokens.ts hands the token thread: texts to count, or one text to cut to a number of tokens. */
export type TokenTask = { count: readonly string[] } | { trim: string; maxTokens: number }
export type TokenAnswer = number[] | Trimmed

/** Runs on the token thread: the counts of `count`'s texts, in order, or the trim. */
export function tokensOnThread(task: TokenTask): TokenAnswer {
  if ('count' in task) return task.count.map(countTokensNow)
  return trimToTokensNow(task.trim, task.maxTokens)
}
