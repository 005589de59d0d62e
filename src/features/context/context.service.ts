import { type Billing, elapsed, REALTIME } from '../../billing/billed-lookup.ts'
import { modelCallPriceMc } from '../../billing/prices.ts'
import { resolveEngineName } from '../../engines/choice.ts'
import type { OrganicResult, SearchRequest } from '../../engines/engine.types.ts'
import type { AuthContext } from '../../http/auth.ts'
import { type ModelConfig, requireModel } from '../../llm/chat-model.ts'
import { normalisePageUrl, pageError, pagePriceMc, readPage } from '../../reader/page-read.ts'
import { baseLanguage } from '../../text/analyze.ts'
import { countTokens } from '../../text/tokens.ts'
import { EMPTY_PAGE_MESSAGE } from '../reading/extract.service.ts'
import { runSearch, type SearchBody, type SearchDeps } from '../search/search.service.ts'
import { type AnswerDepth, writeAnswer } from './context.answer.ts'
import { type EmbeddingsConfig, hybridOrder } from './context.embeddings.ts'
import { type ContextPage, fillLeads, fillPassages, lexicalOrder, type PassageSelection, preparePassages } from './context.passages.ts'
import {
  type ContextAnswer,
  type ContextParams,
  type ContextPassage,
  type ContextResponse,
  DEFAULT_CONTEXT_PAGES,
  DEFAULT_CONTEXT_TOKENS,
} from './context.schema.ts'

/**
 * POST /v1/context: one web search, the top results read as Markdown (as include_content reads
 * them), and the passages that best answer `q` within `max_tokens` (context.passages.ts).
 *
 * Billing is the search's own reserve/settle (billed-lookup.ts), with the page reads as its
 * enrichment: the search's price and `num` pages are reserved before any work; after it, the
 * reservation is settled to the search as delivered (1 credit; half from the cache with max_age;
 * nothing when it found nothing) plus 1 credit per page read (half from the page cache). A page
 * that fails costs nothing and is listed in `sources`; a failed search refunds everything. With
 * `answer`, one model call is reserved too and billed only when the model answered.
 */

export interface ContextRequest {
  q: string
  max_tokens: number
  num: number
  engine: string
  country: string
  language: string
  time?: SearchRequest['time']
  include_domains?: string[]
  exclude_domains?: string[]
  max_age?: number
  answer?: AnswerDepth
}

type ContextSource = ContextResponse['sources'][number]

/** The /v1/context body (context.schema.ts), its `request` typed as the normalised request it echoes. */
export type ContextBody = Omit<ContextResponse, 'request'> & { request: ContextRequest }

export interface ContextOutcome {
  body: ContextBody
  usedMc: number
  balanceMc: number | null
  /** X-Cache: HIT only when the search and every page read came from the cache. */
  cacheHit: boolean
}

/** Search results read at once (extract's limit too). */
const PARALLEL_PAGES = 5
/** Deadline for reading pages, from the first read: a page still loading then is listed as a timeout. */
const PAGES_TIMEOUT_MS = 15_000
/** The search asks for one page of results (1 credit): up to 10 candidates for `num` reads. */
const SEARCH_DEPTH = 10

const LEADS_NOTE = 'no passage of the pages read shares a word with q (stop words aside): each page read gives its first passage instead, in result order'

/** Defaults filled in and aliases folded (`request` in the answer). */
export function normaliseContext(p: ContextParams, auth: AuthContext): ContextRequest {
  const req: ContextRequest = {
    q: p.q,
    max_tokens: p.max_tokens ?? DEFAULT_CONTEXT_TOKENS,
    num: p.num ?? DEFAULT_CONTEXT_PAGES,
    engine: resolveEngineName(p.engine, auth, { consensus: true }),
    country: p.country ?? 'us',
    language: p.language ?? 'en',
  }
  if (p.time) req.time = p.time
  if (p.include_domains) req.include_domains = p.include_domains
  if (p.exclude_domains) req.exclude_domains = p.exclude_domains
  if (p.max_age !== undefined) req.max_age = p.max_age
  if (p.answer) req.answer = p.answer === true ? 'basic' : p.answer
  return req
}

/** The web search a context request makes: the same request /v1/search would normalise, so both share cache entries. */
export function contextSearch(req: ContextRequest): SearchRequest {
  const search: SearchRequest = {
    endpoint: 'search',
    engine: req.engine,
    q: req.q,
    country: req.country,
    language: req.language,
    num: SEARCH_DEPTH,
    page: 1,
    safe: 'off',
    device: 'desktop',
  }
  if (req.time) search.time = req.time
  if (req.include_domains) search.include_domains = req.include_domains
  if (req.exclude_domains) search.exclude_domains = req.exclude_domains
  return search
}

interface Reading {
  pages: ContextPage[]
  sources: ContextSource[]
  usedMc: number
  allCached: boolean
}

/** The search's deps; the whole Config at run time, from which the embeddings endpoint and the model are read when there are some. */
export type ContextDeps = SearchDeps & { config: SearchDeps['config'] & { embeddings?: EmbeddingsConfig | null; llm?: ModelConfig | null } }

type ModelUsage = NonNullable<ContextBody['meta']['model']>

export async function runContext(
  deps: ContextDeps,
  auth: AuthContext,
  req: ContextRequest,
  requestId: string,
  /** Research jobs pass prepaid (factor 1): the job held the worst case when queued and keeps what this reports. */
  billing: Billing = REALTIME,
): Promise<ContextOutcome> {
  const started = performance.now()
  // Before any credit moves: an answer without a model is 501.
  const model = req.answer ? requireModel(deps.config.llm, 'answer') : null
  const modelMc = model ? modelCallPriceMc(model.callCredits) : 0
  let reading: Reading | undefined
  let selection: PassageSelection | null = null
  let answer: ContextAnswer | undefined
  let usage: ModelUsage | undefined
  const notes: string[] = []
  const outcome = await runSearch(
    deps,
    auth,
    contextSearch(req),
    {
      maxAge: req.max_age,
      endpoint: '/v1/context',
      enrich: {
        reserveMc: req.num * pagePriceMc(false) + modelMc,
        async run(body) {
          reading = await readResults(deps, body.results, req)
          selection = await choosePassages(deps, reading.pages, req, notes)
          let usedMc = reading.usedMc
          if (model && req.answer) {
            const written = await answerFrom(deps, model, req.q, selection.passages, req.answer, notes)
            answer = written.answer
            usage = written.usage
            if (written.answered) usedMc += modelMc
          }
          return { body, usedMc }
        },
      },
    },
    requestId,
    billing,
  )
  const search = outcome.body as SearchBody
  // Typed again: TypeScript does not see the closure above assign them.
  const chosen = selection as PassageSelection | null
  if (model && answer === undefined) {
    answer = null
    notes.push('no page was read: no answer written')
  }
  const passages = chosen?.passages ?? []
  const sources = (reading?.sources ?? []).map((s) => ({ ...s, passages: passages.filter((p) => p.position === s.position).length }))
  const body: ContextBody = {
    request: req,
    ...(answer !== undefined && { answer }),
    passages,
    sources,
    meta: {
      request_id: requestId,
      credits_used: search.meta.credits_used as number,
      latency_ms: elapsed(started),
      tokens_used: chosen?.tokensUsed ?? 0,
      truncated: chosen?.truncated ?? false,
      tokens_relevant: chosen?.tokensRelevant ?? 0,
      ranking: chosen?.ranking ?? 'lexical',
      notes,
      engine: String(search.meta.engine ?? req.engine),
      cached: outcome.cacheHit,
      pages_read: sources.filter((s) => s.read).length,
      ...(model && { model: usage ?? { model: model.model, calls: 0, prompt_tokens: 0, completion_tokens: 0 } }),
    },
  }
  return { body, usedMc: outcome.usedMc, balanceMc: outcome.balanceMc, cacheHit: outcome.cacheHit && (reading?.allCached ?? true) }
}

/**
 * Ranks and fills the budget: hybrid when an embeddings endpoint is configured and answers,
 * lexical otherwise (a failed endpoint says so in `notes`), and the pages' leads when nothing
 * matches the question at all. Runs after the pages were billed: nothing here fails the request.
 */
async function choosePassages(deps: ContextDeps, pages: ContextPage[], req: ContextRequest, notes: string[]): Promise<PassageSelection> {
  const prep = await preparePassages(pages, req.q, baseLanguage(req.language) ?? 'en')
  const lexical = lexicalOrder(prep)
  const embeddings = deps.config.embeddings
  if (embeddings && prep.candidates.length > 0) {
    try {
      const order = await hybridOrder(embeddings, prep, req.q, lexical)
      if (order.length > 0) return fillPassages(prep, order, req.max_tokens, 'hybrid')
    } catch (err) {
      deps.log.warn({ err: (err as Error).message }, 'context: embeddings endpoint failed; ranked lexically')
      notes.push(`the embeddings endpoint ${(err as Error).message}: passages ranked lexically`)
    }
  }
  if (lexical.length > 0) return fillPassages(prep, lexical, req.max_tokens, 'lexical')
  notes.push(LEADS_NOTE)
  return fillLeads(prep, req.max_tokens)
}

/**
 * The model's answer from the passages chosen, checked (context.answer.ts). Never throws: a model
 * that fails leaves `answer` null with the reason in `notes`, and its call is not billed.
 */
async function answerFrom(
  deps: ContextDeps,
  model: ModelConfig,
  question: string,
  passages: readonly ContextPassage[],
  depth: AnswerDepth,
  notes: string[],
): Promise<{ answer: ContextAnswer; usage: ModelUsage; answered: boolean }> {
  const none = { model: model.model, calls: 0, prompt_tokens: 0, completion_tokens: 0 }
  if (passages.length === 0) {
    notes.push('no passage to answer from: no answer written')
    return { answer: null, usage: none, answered: false }
  }
  try {
    const written = await writeAnswer(model, question, passages, depth)
    if (written.note) notes.push(written.note)
    const usage = { ...none, calls: 1, prompt_tokens: written.usage.prompt, completion_tokens: written.usage.completion }
    const answer = written.text
      ? {
          text: written.text,
          citations: written.cited.map((n) => {
            const p = passages[n - 1]!
            return { n, url: p.url, title: p.title, start: p.start, end: p.end }
          }),
        }
      : null
    return { answer, usage, answered: true }
  } catch (err) {
    deps.log.warn({ err: (err as Error).message }, 'context: the model failed; no answer written')
    notes.push(`${(err as Error).message}: no answer written (the model call is not billed)`)
    return { answer: null, usage: { ...none, calls: 1 }, answered: false }
  }
}

type Read = { source: ContextSource; page: ContextPage | null; mc: number }

/**
 * Reads results in order, PARALLEL_PAGES at a time, until `num` pages were read: a result whose
 * page fails is replaced by the next result. A read starts only while the pages read and in flight
 * are fewer than `num`, so the results tried are always the shortest prefix holding `num` readable
 * pages, whatever order the reads finish in (deterministic, and never more reads than reserved).
 */
async function readResults(deps: SearchDeps, results: readonly OrganicResult[], req: ContextRequest): Promise<Reading> {
  const seen = new Set<string>()
  const candidates = results.filter((r) => {
    const key = normalisePageUrl(r.link) ?? r.link
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const deadline = Date.now() + PAGES_TIMEOUT_MS
  const done: (Read | undefined)[] = new Array(candidates.length)
  let next = 0
  let read = 0
  let inFlight = 0
  const worker = async () => {
    while (next < candidates.length && read + inFlight < req.num && Date.now() < deadline) {
      const i = next++
      inFlight++
      const outcome = await readOne(deps, candidates[i]!, deadline, req.max_age)
      inFlight--
      done[i] = outcome
      if (outcome.page) read++
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL_PAGES, req.num) }, worker))
  const reads = done.filter((r): r is Read => r !== undefined)
  return {
    pages: reads.flatMap((r) => (r.page ? [r.page] : [])),
    sources: reads.map((r) => r.source),
    usedMc: reads.reduce((sum, r) => sum + r.mc, 0),
    allCached: reads.every((r) => !r.page || r.source.cached === true),
  }
}

/** Never throws: a page that cannot be read is a source with its error, and costs nothing. */
async function readOne(deps: SearchDeps, result: OrganicResult, deadline: number, maxAge: number | undefined): Promise<Read> {
  const source: ContextSource = { url: result.link, title: result.title, position: result.position, read: false, passages: 0 }
  try {
    // render auto and no max_tokens: the read /v1/webpage gives by default, so offsets match its Markdown (and its cache entry is shared).
    const page = await readPage(deps, result.link, { format: 'markdown', render: 'auto', timeoutMs: deadline - Date.now() }, maxAge)
    if (page.empty) return { source: { ...source, error: { code: 'empty_page', message: EMPTY_PAGE_MESSAGE } }, page: null, mc: 0 }
    return {
      source: { ...source, read: true, cached: page.cached },
      page: {
        url: page.result.url,
        title: page.result.title ?? result.title,
        position: result.position,
        markdown: page.result.markdown ?? '',
        language: page.result.metadata.language ?? null,
      },
      mc: pagePriceMc(page.cached),
    }
  } catch (err) {
    const e = pageError(err, deps.log)
    return { source: { ...source, error: { code: e.code, message: e.message } }, page: null, mc: 0 }
  }
}

/** X-Tokens-Estimate: the passages' exact tokens plus the rest of the body counted without their text. */
export async function bodyTokens(body: ContextBody): Promise<number> {
  const skeleton = JSON.stringify({ ...body, passages: body.passages.map((p) => ({ ...p, text: '' })) })
  return body.meta.tokens_used + (await countTokens(skeleton))
}
