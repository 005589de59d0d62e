import { requireOnFirstUse } from '../paths.ts'

/**
 * The o200k tables take about 60 MB: loaded at the first count, not at start, so a server that
 * only crawls or serves cached searches without token counts never holds them.
 */
const tokenizer = requireOnFirstUse<typeof import('gpt-tokenizer/encoding/o200k_base')>('gpt-tokenizer/encoding/o200k_base')

/** Tokens in `text` under o200k_base (the GPT-4o family's tokenizer); what X-Tokens-Estimate reports. */
export function countTokens(text: string): number {
  return text ? tokenizer().encode(text).length : 0
}

/**
 * Cuts `text` to at most `maxTokens` tokens, backing off to the last paragraph, line or sentence end
 * so a reader never gets half a word or half a table row.
 */
export function trimToTokens(text: string, maxTokens: number): { text: string; trimmed: boolean } {
  const { encode, decode } = tokenizer()
  const tokens = encode(text)
  if (tokens.length <= maxTokens) return { text, trimmed: false }
  const cut = decode(tokens.slice(0, maxTokens))
  const floor = Math.floor(cut.length * 0.6) // never give back more than 40% to find a boundary
  for (const boundary of ['\n\n', '\n', '. ', ' ']) {
    const at = cut.lastIndexOf(boundary)
    if (at >= floor) return { text: cut.slice(0, at + (boundary === '. ' ? 1 : 0)).trimEnd(), trimmed: true }
  }
  return { text: cut.trimEnd(), trimmed: true }
}

const memo = new Map<string, number>()

/**
 * countTokens for text that is the same every time under `key` but for a few bytes (a cached
 * response whose meta carries a new request id): counted once, then remembered; `text` is only
 * made on the first count.
 */
export function countTokensOnce(key: string, text: () => string): number {
  let count = memo.get(key)
  if (count === undefined) {
    count = countTokens(text())
    if (memo.size >= 5000) memo.delete(memo.keys().next().value as string)
    memo.set(key, count)
  }
  return count
}
