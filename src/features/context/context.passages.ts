import { tokenize } from '../../text/bm25.ts'
import { type Block, type Chunk, chunkBlocks, HEADING_LINE, MAX_CHUNK_TOKENS, scanBlocks, tokensPerChar } from '../../text/markdown-chunks.ts'
import { countTokensEach } from '../../text/tokens.ts'
import { loadWordnet } from '../../text/wordnet.ts'
import { rankLexically } from './context.rank.ts'
import type { ContextPassage } from './context.schema.ts'

/**
 * Passages for POST /v1/context, from the Markdown of the pages read: each page is cut at headings
 * and paragraphs into chunks of about 100 to 300 tokens, every chunk of every page is ranked by
 * BM25 against the query (with the chunk's headings and its page's title as boosted fields),
 * near-duplicates (the same paragraph on several sites) are dropped, and the budget is filled
 * greedily, best first. Pure and deterministic: the same pages and query give the same passages.
 *
 * Offsets are JavaScript string indices (UTF-16 code units) into the page's Markdown exactly as
 * /v1/webpage returns it: `markdown.slice(start, end) === text`.
 */

export interface ContextPage {
  /** The page's URL after redirects (what /v1/webpage answers as `url`). */
  url: string
  title: string | null
  /** Rank of the search result the page was read for. */
  position: number
  markdown: string
  /** The page's declared language (its lang attribute), if any: checked against its text before its words are stemmed. */
  language?: string | null
}

export interface PassageSelection {
  passages: ContextPassage[]
  /** Sum of the passages' tokens: at most the budget. */
  tokensUsed: number
  /** Passages relevant enough to give (at the relative floor or above) were left out because the budget was full. */
  truncated: boolean
  /** The tokens every relevant passage would take: the budget that would hold them all (left-out ones estimated when far past what was left). */
  tokensRelevant: number
  /** How the passages were chosen: lexical ranking, lexical fused with embeddings, or the pages' leads when nothing matched. */
  ranking: Ranking
  /** Chunks the pages were cut into, and how many were dropped as near-duplicates of a chosen passage. */
  chunks: number
  duplicates: number
}

/** A chunk scoring under this share of the best chunk is not relevant enough to spend the budget on. */
const RELATIVE_FLOOR = 0.2
/** While another page has relevant passages waiting, one page takes at most this share of the budget. */
const PAGE_SHARE = 0.6
/** A lead is the first chunk of a page whose clutter factor is at least this (context.rank.ts). */
const LEAD_CLUTTER = 0.6
/** Chunks with fewer words than this (a lone "Advertisement", a caption) are never passages. */
const MIN_WORDS = 5
/** Near-duplicates: shingles of this many words (shingles() joins four); same text if Jaccard or containment reach these. */
const SHINGLE = 4
const JACCARD_DUPLICATE = 0.5
const CONTAINMENT_DUPLICATE = 0.8
/** Paragraphs this long or longer are looked for on the other pages. */
const MIN_SYNDICATED_WORDS = 12

/**
 * Paragraphs found on more than one page (syndicated copies, quoted press releases): the starts of
 * every block, per page, whose shingles nearly match a block of another page. Blocks are indexed
 * by shingle, so each is compared only with the blocks it shares a shingle with.
 */
function syndicatedBlocks(pages: readonly ContextPage[], blocks: readonly (readonly Block[])[]): Set<number>[] {
  const out = pages.map(() => new Set<number>())
  const items: { page: number; start: number; shingles: Set<string> }[] = []
  const index = new Map<string, number[]>()
  blocks.forEach((list, page) => {
    for (const block of list) {
      if (block.level > 0) continue
      const words = visibleWords(pages[page]!.markdown.slice(block.start, block.end))
      if (words.length < MIN_SYNDICATED_WORDS) continue
      const id = items.length
      const own = shingles(words)
      items.push({ page, start: block.start, shingles: own })
      for (const sh of own) {
        const list = index.get(sh)
        if (list) list.push(id)
        else index.set(sh, [id])
      }
    }
  })
  items.forEach((item, id) => {
    const shared = new Map<number, number>()
    for (const sh of item.shingles)
      for (const other of index.get(sh) ?? []) if (other !== id && items[other]!.page !== item.page) shared.set(other, (shared.get(other) ?? 0) + 1)
    for (const [other, count] of shared) {
      if (similar(item.shingles.size, items[other]!.shingles.size, count)) {
        out[item.page]!.add(item.start)
        break
      }
    }
  })
  return out
}

/** A chunk's text as read: link and image targets are not words of it. */
function visibleText(text: string): string {
  return text.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\]\([^)]*\)/g, ']')
}

/** The words a chunk is compared by for near-duplicates. */
function visibleWords(text: string): string[] {
  return tokenize(visibleText(text))
}

function shingles(words: string[]): Set<string> {
  const out = new Set<string>()
  if (words.length < SHINGLE) {
    if (words.length > 0) out.add(words.join(' '))
    return out
  }
  for (let i = 0; i + SHINGLE <= words.length; i++) out.add(`${words[i]} ${words[i + 1]} ${words[i + 2]} ${words[i + 3]}`)
  return out
}

function nearDuplicate(a: Set<string>, b: Set<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  let shared = 0
  for (const s of small) if (large.has(s)) shared++
  return similar(a.size, b.size, shared)
}

/** Jaccard of two shingle sets, or the share of the smaller one found in the larger, at the duplicate thresholds. */
function similar(sizeA: number, sizeB: number, shared: number): boolean {
  const small = Math.min(sizeA, sizeB)
  if (small === 0) return false
  return shared / (sizeA + sizeB - shared) >= JACCARD_DUPLICATE || shared / small >= CONTAINMENT_DUPLICATE
}

/** A chunk long enough to be a passage, with what ranking and filling need of it. */
export interface Candidate {
  page: number
  chunk: Chunk
  /** Its visible words (bm25 tokenize), heading lines left out: what it is ranked and compared by. */
  words: string[]
  /** Its visible text (link and image targets dropped): what is ranked and embedded. */
  visible: string
}

/** The pages cut into chunks and ranked lexically: what the budget is filled from (selectPassages, or the service with embeddings). */
export interface Prepared {
  pages: readonly ContextPage[]
  /** Chunks of at least MIN_WORDS words, page by page in page order. */
  candidates: Candidate[]
  /** Every chunk of every page, for the leads when nothing matches. */
  chunks: Chunk[][]
  chunkCount: number
  /** Per candidate: its lexical score (0: it matches no word of the question). */
  lexical: number[]
  clutter: number[]
}

/** One candidate in the order the budget is filled, with the score it is given under. */
export interface Ranked {
  candidate: number
  score: number
}

export type Ranking = 'lexical' | 'hybrid' | 'leads'

/** Cuts the pages into chunks (syndicated paragraphs isolated) and ranks them against `query`. */
export async function preparePassages(pages: readonly ContextPage[], query: string, queryLanguage = 'en'): Promise<Prepared> {
  const candidates: Candidate[] = []
  const blocks = pages.map((page) => scanBlocks(page.markdown))
  const isolated = syndicatedBlocks(pages, blocks)
  // The ranking's synonyms, loaded with turns for the event loop rather than at once (text/wordnet.ts).
  const [ratios] = await Promise.all([tokensPerChar(pages.map((page) => page.markdown)), loadWordnet()])
  const chunks = pages.map((page, p) => chunkBlocks(page.markdown, blocks[p]!, isolated[p]!, ratios[p]!))
  chunks.forEach((list, p) => {
    const md = pages[p]!.markdown
    const title = ` ${tokenize(pages[p]!.title ?? '').join(' ')} `
    // A heading line that repeats the page's title is not a word of the chunk: the title is weighed once, for the whole page.
    const notTitle = (line: string) => {
      const words = ` ${tokenize(line).join(' ')} `
      return title.trim() === '' || words.trim() === '' || !(title.includes(words) || words.includes(title))
    }
    for (const chunk of list) {
      const visible = visibleText(md.slice(chunk.start, chunk.end))
      const ws = tokenize(visible.replace(HEADING_LINE, (line) => (notTitle(line) ? line : ' ')))
      if (ws.length >= MIN_WORDS) candidates.push({ page: p, chunk, words: ws, visible })
    }
  })
  const { scores, clutter } = rankLexically(
    pages.map((p) => ({ title: p.title, language: p.language })),
    candidates.map((c) => ({ page: c.page, text: pages[c.page]!.markdown.slice(c.chunk.start, c.chunk.end), words: c.words, headings: c.chunk.above })),
    query,
    queryLanguage,
  )
  return { pages, candidates, chunks, chunkCount: chunks.reduce((n, l) => n + l.length, 0), lexical: scores, clutter }
}

/** Best first (ties: result position, then place on the page); only those at RELATIVE_FLOOR of the best or above. */
export function lexicalOrder(prep: Prepared): Ranked[] {
  const order = prep.candidates
    .map((_, i) => ({ candidate: i, score: prep.lexical[i]! }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || compareCandidates(prep, a.candidate, b.candidate))
  const floor = (order[0]?.score ?? 0) * RELATIVE_FLOOR
  return order.filter((r) => r.score >= floor)
}

/** Result position, then page, then place on the page. */
export function compareCandidates(prep: Prepared, a: number, b: number): number {
  const ca = prep.candidates[a]!
  const cb = prep.candidates[b]!
  return prep.pages[ca.page]!.position - prep.pages[cb.page]!.position || ca.page - cb.page || ca.chunk.start - cb.chunk.start
}

/**
 * The passages of `pages` that best answer `query`, best first, together at most `maxTokens`
 * tokens, ranked lexically; when no chunk matches a word of the question, the leads of the pages.
 */
export async function selectPassages(pages: readonly ContextPage[], query: string, maxTokens: number, queryLanguage = 'en'): Promise<PassageSelection> {
  const prep = await preparePassages(pages, query, queryLanguage)
  const order = lexicalOrder(prep)
  return order.length > 0 ? fillPassages(prep, order, maxTokens, 'lexical') : fillLeads(prep, maxTokens)
}

/** Candidates counted in one trip to the token thread when the fill comes to one not counted yet. */
const COUNT_AHEAD = 32

/**
 * The exact tokens of `order`'s candidates, counted in trips to the token thread: first the best,
 * until their estimates reach twice the budget (what the fill most likely weighs), then, when
 * the fill comes to a candidate not counted yet, it and the COUNT_AHEAD after it.
 */
function exactTokens(prep: Prepared, order: readonly Ranked[], maxTokens: number): (rank: number) => Promise<number> {
  const known = new Map<number, number>()
  const count = async (ranks: number[]) => {
    const fresh = ranks.map((rank) => order[rank]!.candidate).filter((i) => !known.has(i))
    const counts = await countTokensEach(fresh.map((i) => candidateText(prep, i)))
    for (const [k, i] of fresh.entries()) known.set(i, counts[k]!)
  }
  let first: Promise<void> | null = null
  return async (rank) => {
    if (!first) {
      const likely: number[] = []
      let estimated = 0
      for (let r = 0; r < order.length && estimated <= maxTokens * 2; r++) {
        estimated += prep.candidates[order[r]!.candidate]!.chunk.estTokens
        likely.push(r)
      }
      first = count(likely)
    }
    await first
    const candidate = order[rank]!.candidate
    if (!known.has(candidate)) await count(Array.from({ length: Math.min(COUNT_AHEAD, order.length - rank) }, (_, k) => rank + k))
    return known.get(candidate)!
  }
}

function candidateText(prep: Prepared, i: number): string {
  const { chunk, page } = prep.candidates[i]!
  return prep.pages[page]!.markdown.slice(chunk.start, chunk.end)
}

/**
 * Fills the budget from `order`, best first: a near-duplicate of a passage already given is
 * dropped, a passage that does not fit is skipped for the next ones, and no page takes more than
 * PAGE_SHARE of the budget while another page has relevant passages waiting (its next passages
 * wait until those were tried, then fill what is left).
 */
export async function fillPassages(prep: Prepared, order: readonly Ranked[], maxTokens: number, ranking: Ranking): Promise<PassageSelection> {
  const { candidates } = prep
  const cap = Math.max(MAX_CHUNK_TOKENS, Math.floor(maxTokens * PAGE_SHARE))
  const relevantPages = new Set(order.map((r) => candidates[r.candidate]!.page))
  const chosen: { rank: number; r: Ranked; shingles: Set<string>; tokens: number }[] = []
  const usedByPage = new Map<number, number>()
  const deferred: number[] = []
  let left = maxTokens
  let duplicates = 0
  let leftOutTokens = 0
  let leftOut = 0
  const exact = exactTokens(prep, order, maxTokens)
  const consider = async (rank: number, capped: boolean): Promise<'taken' | 'deferred' | 'skipped'> => {
    const r = order[rank]!
    const c = candidates[r.candidate]!
    const own = shingles(c.words)
    if (chosen.some((k) => nearDuplicate(own, k.shingles))) {
      duplicates++
      return 'skipped'
    }
    // An estimate well past what is left: no need to count it exactly.
    const tokens = c.chunk.estTokens > left * 1.5 ? c.chunk.estTokens : await exact(rank)
    const used = usedByPage.get(c.page) ?? 0
    if (capped && relevantPages.size > 1 && used > 0 && used + tokens > cap) return 'deferred'
    if (tokens > left) {
      leftOut++
      leftOutTokens += tokens
      return 'skipped'
    }
    chosen.push({ rank, r, shingles: own, tokens })
    usedByPage.set(c.page, used + tokens)
    left -= tokens
    return 'taken'
  }
  for (let rank = 0; rank < order.length; rank++) if ((await consider(rank, true)) === 'deferred') deferred.push(rank)
  for (const rank of deferred) await consider(rank, false)
  chosen.sort((a, b) => a.rank - b.rank)
  const passages = chosen.map(({ r, tokens }) => toPassage(prep, r, tokens))
  return {
    passages,
    tokensUsed: maxTokens - left,
    truncated: leftOut > 0,
    tokensRelevant: maxTokens - left + leftOutTokens,
    ranking,
    chunks: prep.chunkCount,
    duplicates,
  }
}

/**
 * No chunk matches the question: the first passage of each page read (its first chunk that is not
 * clutter), in result order, within the budget. Never empty while a page read has any text.
 */
export async function fillLeads(prep: Prepared, maxTokens: number): Promise<PassageSelection> {
  const { pages } = prep
  const passages: ContextPassage[] = []
  let left = maxTokens
  let truncated = false
  let wanted = 0
  const leads = pages.map((_, p) => {
    const own = prep.candidates.map((c, i) => ({ c, i })).filter(({ c }) => c.page === p)
    const lead = own.find(({ i }) => prep.clutter[i]! >= LEAD_CLUTTER) ?? own[0]
    return lead?.c.chunk ?? prep.chunks[p]?.[0]
  })
  const counts = await countTokensEach(leads.map((chunk, p) => (chunk ? pages[p]!.markdown.slice(chunk.start, chunk.end) : '')))
  pages.forEach((page, p) => {
    const chunk = leads[p]
    if (!chunk) return
    const tokens = counts[p]!
    wanted += tokens
    if (tokens > left) {
      truncated = true
      return
    }
    left -= tokens
    passages.push({
      text: page.markdown.slice(chunk.start, chunk.end),
      url: page.url,
      title: page.title,
      position: page.position,
      score: 0,
      tokens,
      start: chunk.start,
      end: chunk.end,
      heading: chunk.heading,
    })
  })
  return { passages, tokensUsed: maxTokens - left, truncated, tokensRelevant: wanted, ranking: 'leads', chunks: prep.chunkCount, duplicates: 0 }
}

function toPassage(prep: Prepared, r: Ranked, tokens: number): ContextPassage {
  const c = prep.candidates[r.candidate]!
  const page = prep.pages[c.page]!
  return {
    text: page.markdown.slice(c.chunk.start, c.chunk.end),
    url: page.url,
    title: page.title,
    position: page.position,
    score: r.score,
    tokens,
    start: c.chunk.start,
    end: c.chunk.end,
    heading: c.chunk.heading,
  }
}
