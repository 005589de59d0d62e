import type { z } from 'zod'
import { billedLookup, REALTIME } from '../../../billing/billed-lookup.ts'
import { modelCallPriceMc } from '../../../billing/prices.ts'
import type { AppDeps } from '../../../deps.ts'
import type { NewsResult, OrganicResult } from '../../../engines/engine.types.ts'
import { ApiError } from '../../../errors.ts'
import type { AuthContext } from '../../../http/auth.ts'
import { parseWith } from '../../../http/parse-input.ts'
import { country as countryCode, countryFromLocation, language as languageCode } from '../../../params/search.params.ts'
import { rankHighlights } from '../../../reader/highlights.rank.ts'
import { bm25Scores, tokenize } from '../../../text/bm25.ts'
import { type AnswerDepth, writeAnswer } from '../../context/context.answer.ts'
import { runExtract } from '../../reading/extract.service.ts'
import { SearchParams } from '../../search/search.schema.ts'
import { normaliseSearch, runSearch } from '../../search/search.service.ts'
import type { ResultContent } from '../../search/search-content.service.ts'
import { ImagesParams, NewsParams } from '../../search/verticals/vertical.schemas.ts'
import { runVertical } from '../../search/verticals/vertical.service.ts'
import { VERTICAL_SPECS } from '../../search/verticals/vertical.specs.ts'
import { type Charges, favicon, noCharges } from './tavily.money.ts'
import type { TavilySearchResponse, TavilySearchResult } from './tavily.response.ts'
import type { TavilySearchParams } from './tavily.schema.ts'

type Time = 'hour' | 'day' | 'week' | 'month' | 'year'

/** Tavily's default result count. */
const DEFAULT_MAX_RESULTS = 5
/** Tavily's default chunks per source for advanced searches. */
const DEFAULT_CHUNKS = 3
/** Trawl reads at most this many result pages per search (include_content). */
const MAX_PAGE_READS = 10
/** Page content kept per result, as /v1/search include_content keeps it. */
const RAW_CONTENT_TOKENS = 4000

/** The search answer (TavilySearchResponse) before the route adds response_time, request_id and usage. */
export type TavilySearchAnswer = Omit<z.infer<typeof TavilySearchResponse>, 'response_time' | 'request_id' | 'usage'>

type TavilyResult = z.infer<typeof TavilySearchResult>

/** One result before scoring: the engine's item with what was read of its page. */
interface Found {
  title: string
  url: string
  snippet: string
  date?: string
  page?: string
}

const RANGE: Record<string, Time> = { day: 'day', d: 'day', week: 'week', w: 'week', month: 'month', m: 'month', year: 'year', y: 'year' }

/** time_range, max_hours or days as Trawl's `time`: the smallest window that holds what was asked. */
function timeOf(p: TavilySearchParams): Time | undefined {
  if (p.time_range) return RANGE[p.time_range]
  const hours = p.max_hours ?? (p.days !== undefined ? p.days * 24 : undefined)
  if (hours === undefined) return undefined
  if (hours <= 1) return 'hour'
  if (hours <= 24) return 'day'
  if (hours <= 24 * 7) return 'week'
  if (hours <= 24 * 31) return 'month'
  return 'year'
}

/** start_date / end_date as the engine's custom date range (cdr), which only Google takes. */
function dateRange(p: TavilySearchParams): string | undefined {
  if (!p.start_date && !p.end_date) return undefined
  const us = (iso: string) => {
    const [y, m, d] = iso.split('-')
    return `${Number(m)}/${Number(d)}/${y}`
  }
  return ['cdr:1', p.start_date ? `cd_min:${us(p.start_date)}` : '', p.end_date ? `cd_max:${us(p.end_date)}` : ''].filter(Boolean).join(',')
}

/** Tavily names countries in full ("united states"); a two-letter code is taken too. */
function countryOf(name: string | undefined): string | undefined {
  if (name === undefined) return undefined
  const code = /^[a-z]{2}$/i.test(name) ? countryCode.safeParse(name).data : countryFromLocation(name)
  if (!code)
    throw new ApiError(
      'invalid_request',
      `country: ${name} is not a country name Trawl knows (write it in English, e.g. united states, or as a two-letter code)`,
    )
  return code
}

function languageOf(code: string | undefined): string | undefined {
  if (code === undefined) return undefined
  const parsed = languageCode.safeParse(code)
  if (!parsed.success) throw new ApiError('invalid_request', 'language must be a language code with an optional region, such as en or pt-BR')
  return parsed.data
}

/** The Trawl parameters a Tavily search maps to, shared by web and news searches. */
function trawlParams(p: TavilySearchParams, maxResults: number) {
  const tbs = dateRange(p)
  const time = tbs ? undefined : timeOf(p)
  const q = p.exact_match ? `"${p.query.replaceAll('"', '')}"` : p.query
  const country = countryOf(p.country)
  const language = languageOf(p.language)
  return {
    q,
    num: maxResults > 10 ? 20 : 10,
    ...(country && { country }),
    ...(language && { language }),
    ...(time && { time }),
    ...(tbs && { tbs }),
    ...(p.include_domains && { include_domains: p.include_domains }),
    ...(p.exclude_domains && { exclude_domains: p.exclude_domains }),
  }
}

/**
 * POST /search: topic general and finance are Trawl's web search, topic news its news vertical,
 * billed exactly as those calls (1 credit per page of 10 asked for, free when empty). Reading the
 * result pages (include_raw_content, search_depth advanced) is /v1/search's include_content (+1 per
 * page read, in the same reservation), or for news a /v1/extract call of the links; include_images
 * is a /v1/images call. include_answer is the operator's model's answer when one is configured
 * (one model call, billed on its own), else extractive.
 */
export async function tavilySearch(deps: AppDeps, auth: AuthContext, p: TavilySearchParams, requestId: string) {
  const maxResults = p.max_results ?? DEFAULT_MAX_RESULTS
  const advanced = p.search_depth === 'advanced'
  const readPages = advanced || (p.include_raw_content !== undefined && p.include_raw_content !== false)
  const reads = readPages ? Math.min(maxResults, MAX_PAGE_READS) : 0
  const charges = noCharges()
  const params = trawlParams(p, maxResults)

  let found: Found[]
  let answerBox: string | undefined
  if (p.topic === 'news') {
    const spec = VERTICAL_SPECS.news
    const request = spec.normalise(parseWith(NewsParams, params) as Record<string, unknown>, auth)
    const outcome = await runVertical(deps, auth, spec, request, {}, requestId)
    charges.add(outcome)
    found = (outcome.body.results as NewsResult[]).slice(0, maxResults).map((r) => ({
      title: r.title,
      url: r.link,
      snippet: r.snippet ?? '',
      ...(r.date && { date: r.date }),
    }))
    if (reads > 0) await readNewsPages(deps, auth, found.slice(0, reads), requestId, charges)
  } else {
    const request = normaliseSearch(parseWith(SearchParams, params), auth)
    const outcome = await runSearch(deps, auth, request, { includeContent: reads }, requestId)
    charges.add(outcome)
    const box = outcome.body.answer_box
    answerBox = box?.answer ?? box?.snippet ?? undefined
    found = (outcome.body.results as (OrganicResult & ResultContent)[]).slice(0, maxResults).map((r) => ({
      title: r.title,
      url: r.link,
      snippet: r.snippet ?? '',
      ...(r.content !== undefined && { page: r.content }),
    }))
  }

  const chunks = p.chunks_per_source ?? DEFAULT_CHUNKS
  const results: TavilyResult[] = found.map((f) => ({
    title: f.title,
    url: f.url,
    content: advanced && f.page ? chunksOf(f.page, p.query, chunks) || f.snippet : f.snippet,
    score: 0,
    raw_content: readPages && p.include_raw_content ? (f.page ?? null) : null,
    ...(f.date && { published_date: f.date }),
    ...(p.include_favicon && { favicon: favicon(f.url) }),
  }))
  scoreResults(results, p.query)
  const answer = p.include_answer ? await answerOf(deps, auth, p, { results, found, answerBox }, requestId, charges) : null
  const images = p.include_images ? await searchImages(deps, auth, params, p.include_image_descriptions === true, requestId, charges) : []
  const body: TavilySearchAnswer = { query: p.query, follow_up_questions: null, answer, images, results }
  return { body, charges }
}

/** News pages are read by a /v1/extract call of their links; a refused or failed call leaves raw_content null. */
async function readNewsPages(deps: AppDeps, auth: AuthContext, found: Found[], requestId: string, charges: Charges) {
  try {
    const outcome = await runExtract(deps, auth, { urls: found.map((f) => f.url), format: 'markdown', max_tokens: RAW_CONTENT_TOKENS }, requestId)
    charges.add(outcome)
    const byUrl = new Map(outcome.body.results.map((r) => [r.url, r.markdown ?? '']))
    for (const f of found) {
      const page = byUrl.get(f.url)
      if (page) f.page = page
    }
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    deps.log.warn({ code: err.code }, `tavily news: pages not read: ${err.message}`)
  }
}

/** include_images: one /v1/images call; a refused or failed one gives no images rather than failing the search. */
async function searchImages(
  deps: AppDeps,
  auth: AuthContext,
  params: ReturnType<typeof trawlParams>,
  describe: boolean,
  requestId: string,
  charges: Charges,
): Promise<TavilySearchAnswer['images']> {
  try {
    const spec = VERTICAL_SPECS.images
    const { q, country, language } = params as { q: string; country?: string; language?: string }
    const request = spec.normalise(parseWith(ImagesParams, { q, ...(country && { country }), ...(language && { language }) }) as Record<string, unknown>, auth)
    const outcome = await runVertical(deps, auth, spec, request, {}, requestId)
    charges.add(outcome)
    const images = outcome.body.results as { image_url?: string | null; title?: string | null }[]
    return images.flatMap((img) => (img.image_url ? [describe ? { url: img.image_url, description: img.title ?? '' } : img.image_url] : []))
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    deps.log.warn({ code: err.code }, `tavily include_images: no images: ${err.message}`)
    return []
  }
}

/** search_depth advanced: the page's passages that best match the query (BM25), as Tavily's chunks. */
function chunksOf(page: string, query: string, count: number): string {
  return rankHighlights(page, query, count)
    .map((h) => h.text.replace(/\s+/g, ' ').trim())
    .join(' [...] ')
}

/**
 * `score` in 0..1: half BM25 relevance of title and content to the query (the best result 1),
 * half engine rank (first 1, falling). Results stay in the engine's order.
 */
function scoreResults(results: TavilyResult[], query: string) {
  const relevance = bm25Scores(
    results.map((r) => tokenize(`${r.title} ${r.content}`)),
    query,
  )
  const best = Math.max(0, ...relevance)
  results.forEach((r, i) => {
    const rank = (results.length - i) / results.length
    const bm25 = best > 0 ? (relevance[i] ?? 0) / best : 0
    r.score = Math.round((0.5 * bm25 + 0.5 * rank) * 1e4) / 1e4
  })
}

/** What an answer is written from: the results as returned, and what the engine said besides. */
interface AnswerInput {
  results: TavilyResult[]
  found: Found[]
  answerBox: string | undefined
}

/**
 * include_answer with the operator's model (TRAWL_LLM_URL): an answer written from the results'
 * content (snippets, or the chunks read with search_depth advanced) with the checks of /v1/context
 * answers, each sentence citing [n] = results[n-1]. One model call, held and settled on its own as
 * /v1/context's answer is (ledger label /v1/context); a call that fails, or cannot be held, is
 * not billed and the extractive answer is given instead. Without a model: extractive only.
 */
async function answerOf(deps: AppDeps, auth: AuthContext, p: TavilySearchParams, input: AnswerInput, requestId: string, charges: Charges) {
  const depth: AnswerDepth = p.include_answer === 'advanced' ? 'advanced' : 'basic'
  const extractive = () => extractiveAnswer(p.query, input.results, input.found, input.answerBox, depth === 'advanced' ? 3 : 1)
  const model = deps.config.llm
  const sources = input.results.map((r) => ({ title: r.title, url: r.url, text: r.content.trim() }))
  if (!model || !sources.some((s) => s.text)) return extractive()
  const priceMc = modelCallPriceMc(model.callCredits)
  try {
    if (priceMc === 0) return (await writeAnswer(model, p.query, sources, depth)).text
    const outcome = await billedLookup(deps, auth, REALTIME, requestId, {
      endpoint: '/v1/context',
      holdMc: priceMc,
      ask: async () => ({ meta: {}, written: await writeAnswer(model, p.query, sources, depth) }),
      priceMc: () => priceMc,
    })
    charges.add(outcome)
    return outcome.body.written.text
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    deps.log.warn({ code: err.code }, `tavily include_answer: extractive answer given: ${err.message}`)
    return extractive()
  }
}

const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g

/**
 * include_answer without a model: the engine's answer box when it printed one, else the `count`
 * sentences of the results (snippets, and the chunks read with advanced) that best match the
 * query by BM25, in the order found. Null when no sentence shares a word with the query.
 */
function extractiveAnswer(query: string, results: TavilyResult[], found: Found[], answerBox: string | undefined, count: number): string | null {
  if (answerBox?.trim()) return answerBox.trim()
  const seen = new Set<string>()
  const sentences: string[] = []
  for (const [i, r] of results.entries()) {
    for (const source of [r.content, found[i]?.snippet ?? '']) {
      for (const m of source.matchAll(SENTENCE)) {
        const sentence = m[0]
          .replace(/\s+/g, ' ')
          .replace(/\[\.\.\.\]/g, '')
          .trim()
        if (tokenize(sentence).length < 4 || seen.has(sentence)) continue
        seen.add(sentence)
        sentences.push(sentence)
      }
    }
  }
  const scores = bm25Scores(
    sentences.map((s) => tokenize(s)),
    query,
  )
  const picked = sentences
    .map((s, i) => ({ s, i, score: scores[i] ?? 0 }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, count)
    .sort((a, b) => a.i - b.i)
  return picked.length ? picked.map((x) => x.s).join(' ') : null
}
