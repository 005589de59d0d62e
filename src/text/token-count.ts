import { requireOnFirstUse } from '../paths.ts'
import { MAX_PIECE, pieces } from './token-pieces.ts'

/**
 * The counting itself, synchronous: it runs on the token thread (tokens.ts), which holds o200k's
 * tables (about 60 MB, loaded at its first count: 0.1-0.5 s the event loop never waits for).
 */
const tokenizer = requireOnFirstUse<typeof import('gpt-tokenizer/encoding/o200k_base')>('gpt-tokenizer/encoding/o200k_base')

/**
 * Special tokens (`<|endoftext|>`) written in a page are text like any other: encoded as text,
 * never refused (gpt-tokenizer throws on them by default, which made such a page a 500).
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() }

/**
 * How long one count may hold the token thread (ms) before the rest of the text is estimated: one
 * thread counts for every request, so a page built to be slow must not keep the others waiting.
 * Ordinary text counts at about 10 million characters a second (over 400,000 characters fit); text
 * built to be slow (random letters, CJK or Thai without punctuation) at 0.2-1 million.
 */
const COUNT_BUDGET_MS = 40
/**
 * The estimate of the rest: this many windows of WINDOW characters, spread evenly over it. On the
 * 426 pages and Markdown readings of the reader benchmarks over 60,000 characters, estimating the
 * last 70 % of each so was off by 1.6 % of the whole count at the median, 3.6 % at the 90th
 * percentile, 8.3 % at most (fewer, longer windows did worse: 8 of 512 characters, 27 % at most).
 */
const WINDOWS = 64
const WINDOW = 128

const countPiece = (text: string) => tokenizer().countTokens(text, AS_TEXT)

/**
 * gpt-tokenizer keeps the tokens of up to 100,000 chunks it merged (most of ordinary text's speed
 * comes from it). Pieces of runs no language writes, and samples of text too long to count, would
 * fill it with entries seen once (256 random CJK characters hold 5 KB: 500 MB in all), so after
 * this many of them it is emptied, and ordinary text fills it again.
 */
const ODD_PIECES_BEFORE_CLEAR = 4096
let oddPieces = 0
function odd(count: number) {
  oddPieces += count
  if (oddPieces < ODD_PIECES_BEFORE_CLEAR) return
  oddPieces = 0
  tokenizer().clearMergeCache()
}

/**
 * Tokens in `text` under o200k_base (the GPT-4o family's tokenizer); what X-Tokens-Estimate reports.
 * Linear in the text (token-pieces.ts) and exact but for runs longer than 256 characters with no
 * break (a count up to 0.17 % high there). The thread is held for about COUNT_BUDGET_MS at most:
 * text still uncounted then (only text of hundreds of kilobytes, or text built to be slow) is
 * estimated from evenly spread samples of it.
 */
export function countTokensNow(text: string): number {
  if (!text) return 0
  if (text.length <= MAX_PIECE) return countPiece(text)
  tokenizer() // loaded (a few hundred ms, once) before the clock starts
  const started = performance.now()
  let total = 0
  let cuts = 0
  try {
    for (const [start, end, cut] of pieces(text)) {
      total += countPiece(text.slice(start, end))
      if (cut) cuts++
      if (end < text.length && performance.now() - started > COUNT_BUDGET_MS) return total + estimateFrom(text, end)
    }
    return total
  } finally {
    if (cuts > 0) odd(cuts)
  }
}

/** The tokens of text[from...] estimated from WINDOWS samples of it (bounded work, whatever its length). */
function estimateFrom(text: string, from: number): number {
  const rest = text.length - from
  if (rest <= WINDOWS * WINDOW) return countExactly(text.slice(from))
  odd(WINDOWS)
  let tokens = 0
  let chars = 0
  for (let k = 0; k < WINDOWS; k++) {
    const at = from + Math.floor((k * (rest - WINDOW)) / (WINDOWS - 1))
    const sample = text.slice(at, at + WINDOW)
    tokens += countExactly(sample)
    chars += sample.length
  }
  return Math.round((tokens / chars) * rest)
}

/** countTokens without the budget: for text whose length is already bounded. */
function countExactly(text: string): number {
  let total = 0
  for (const [start, end] of pieces(text)) total += countPiece(text.slice(start, end))
  return total
}

export interface Trimmed {
  text: string
  trimmed: boolean
  /** The tokens of `text` when they were counted on the way (the text was not cut). */
  tokens?: number
}

/**
 * Cuts `text` to at most `maxTokens` tokens, backing off to the last paragraph, line or sentence end
 * so a reader never gets half a word or half a table row. Only the part up to the cut is encoded.
 */
export function trimToTokensNow(text: string, maxTokens: number): Trimmed {
  const { encode, decode } = tokenizer()
  const tokens: number[] = []
  let whole = true
  for (const [start, end, cut] of pieces(text)) {
    for (const token of encode(text.slice(start, end), AS_TEXT)) tokens.push(token)
    if (cut) odd(1)
    if (tokens.length > maxTokens) {
      whole = false
      break
    }
  }
  if (whole) return { text, trimmed: false, tokens: tokens.length }
  const cut = decode(tokens.slice(0, maxTokens))
  const floor = Math.floor(cut.length * 0.6) // never give back more than 40% to find a boundary
  for (const boundary of ['\n\n', '\n', '. ', ' ']) {
    const at = cut.lastIndexOf(boundary)
    if (at >= floor) return { text: cut.slice(0, at + (boundary === '. ' ? 1 : 0)).trimEnd(), trimmed: true }
  }
  return { text: cut.trimEnd(), trimmed: true }
}
