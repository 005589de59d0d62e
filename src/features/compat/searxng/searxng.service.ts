import type { z } from 'zod'
import type { Billing, LookupOutcome } from '../../../billing/billed-lookup.ts'
import type { AppDeps } from '../../../deps.ts'
import type { EngineParam, EngineVerticalName } from '../../../engines/engine.ts'
import type { ImageResult, NewsResult, OrganicResult, VideoResult } from '../../../engines/engine.types.ts'
import type { RouteAttempt } from '../../../engines/upstream/upstream.types.ts'
import { attemptsOf } from '../../../engines/upstream/upstream-error.ts'
import { ApiError } from '../../../errors.ts'
import type { AuthContext } from '../../../http/auth.ts'
import { parseWith } from '../../../http/parse-input.ts'
import { country as countryCode, language as languageCode } from '../../../params/search.params.ts'
import { SearchParams } from '../../search/search.schema.ts'
import { normaliseSearch, runSearch, type SearchBody } from '../../search/search.service.ts'
import { ImagesParams, NewsParams, VideosParams } from '../../search/verticals/vertical.schemas.ts'
import { runVertical, type VerticalBody } from '../../search/verticals/vertical.service.ts'
import { VERTICAL_SPECS } from '../../search/verticals/vertical.specs.ts'
import { chooseEngines, failedEngines, type Unresponsive } from './searxng.engines.ts'
import type { SearxngResponse } from './searxng.response.ts'

type Category = 'general' | 'news' | 'images' | 'videos'
type Time = 'day' | 'week' | 'month' | 'year'

const CATEGORIES: readonly Category[] = ['general', 'news', 'images', 'videos']
const TIMES: readonly Time[] = ['day', 'week', 'month', 'year']
/** Trawl pages go to 10; SearXNG answers later pages with nothing, and so does this. */
const LAST_PAGE = 10
/** A list parameter longer than this is refused: no real client sends one. */
const MAX_LIST_CHARS = 1024

/** One search in SearXNG's terms, checked and normalised. */
export interface SearxngRequest {
  q: string
  category: Category
  page: number
  language?: string
  country?: string
  time?: Time
  safe: boolean
  engines: string[]
}

/**
 * Reads SearXNG's parameters as SearXNG does: `format` first (anything but json is the 403 of an
 * instance that turned that format off), then q; every other parameter is optional and unknown
 * ones are ignored. Values it would refuse (pageno, time_range, safesearch, language) are a 400.
 */
export function readSearxng(input: Record<string, string>): SearxngRequest {
  const format = (input.format ?? 'json').trim().toLowerCase()
  if (format !== 'json') throw new ApiError('forbidden', `format=${format.slice(0, 16)} is not enabled on this server; use format=json`)
  const q = (input.q ?? '').trim()
  if (!q) throw new ApiError('invalid_request', 'q is required (the query)')
  if (q.length > 2048) throw new ApiError('invalid_request', 'q must be at most 2,048 characters')
  for (const name of ['categories', 'engines'] as const) {
    if ((input[name]?.length ?? 0) > MAX_LIST_CHARS) throw new ApiError('invalid_request', `${name} must be at most ${MAX_LIST_CHARS} characters`)
  }
  const list = (s: string | undefined) =>
    (s ?? '')
      .split(',')
      .map((x) => x.trim().toLowerCase())
      .filter(Boolean)
  const category = (list(input.categories).find((c) => (CATEGORIES as string[]).includes(c)) as Category | undefined) ?? 'general'

  const pageno = (input.pageno ?? '').trim()
  if (pageno && !/^\d{1,6}$/.test(pageno)) throw new ApiError('invalid_request', 'pageno must be a positive integer')
  const page = pageno ? Number(pageno) : 1
  if (page < 1) throw new ApiError('invalid_request', 'pageno must be a positive integer')

  const timeRange = (input.time_range ?? '').trim().toLowerCase()
  if (timeRange && !(TIMES as string[]).includes(timeRange)) throw new ApiError('invalid_request', 'time_range must be day, week, month or year')

  const safesearch = (input.safesearch ?? '').trim()
  if (safesearch && !['0', '1', '2'].includes(safesearch)) throw new ApiError('invalid_request', 'safesearch must be 0, 1 or 2')

  const req: SearxngRequest = { q, category, page, safe: safesearch === '1' || safesearch === '2', engines: list(input.engines) }
  Object.assign(req, localeOf(input.language))
  if (timeRange) req.time = timeRange as Time
  return req
}

/** `en`, `de-DE`, `zh-Hans-CN`: the language, and the region as the country; all and auto are the defaults. */
function localeOf(raw: string | undefined): { language?: string; country?: string } {
  const value = (raw ?? '').trim()
  if (!value || /^(all|auto)$/i.test(value)) return {}
  const [lang = '', ...rest] = value.split(/[-_]/)
  const region = rest.find((part) => /^[a-z]{2}$/i.test(part))
  const language = languageCode.safeParse(region ? `${lang}-${region}` : lang)
  if (!language.success) throw new ApiError('invalid_request', 'language must be all, auto, or a language code such as en or de-DE')
  const country = region ? countryCode.safeParse(region) : undefined
  return { language: language.data, ...(country?.success && { country: country.data }) }
}

export type SearxngAnswer = z.infer<typeof SearxngResponse>
type SearxngResult = SearxngAnswer['results'][number]

export interface SearxngOutcome {
  body: SearxngAnswer
  usedMc: number
  balanceMc: number | null
  cacheHit: boolean
}

export interface SearxngCall {
  auth: AuthContext
  billing: Billing
  /** Keyless calls accept a cached answer up to this old (the playground's rule). */
  maxAge?: number
  /** Runs once the request is known to be valid, before any engine is asked (the keyless per-IP limit). */
  beforeLookup?: () => Promise<void>
}

const VERTICAL_OF: Record<Category, EngineVerticalName> = { general: 'search', news: 'news', images: 'images', videos: 'videos' }

/**
 * GET|POST /search: web search for general, Trawl's news, images and videos verticals for the
 * others, billed exactly as /v1/search and /v1/<vertical> (or, keyless, to nobody). A provider
 * that fails does not fail the call: as SearXNG, the answer is then empty (and free) with the
 * provider in unresponsive_engines.
 */
export async function searxngSearch(deps: AppDeps, call: SearxngCall, req: SearxngRequest, requestId: string): Promise<SearxngOutcome> {
  const vertical = VERTICAL_OF[req.category]
  const sent: EngineParam[] = [
    ...(req.time ? (['time'] as const) : []),
    ...(req.safe && (vertical === 'search' || vertical === 'images') ? (['safe'] as const) : []),
  ]
  const choice = chooseEngines(deps.engines, req.engines, vertical, sent, req.category)
  const empty = (unresponsive: Unresponsive[]): SearxngOutcome => ({
    body: answerOf(req.q, [], {}, unresponsive),
    usedMc: 0,
    balanceMc: null,
    cacheHit: false,
  })
  if (req.page > LAST_PAGE) return empty(choice.skipped)

  const params: Record<string, unknown> = {
    q: req.q,
    page: req.page,
    ...(req.language && { language: req.language }),
    ...(req.country && { country: req.country }),
    ...(req.time && { time: req.time }),
    ...(sent.includes('safe') && { safe: 'active' }),
    ...(choice.providers.length > 0 && { engine: choice.providers.join(',') }),
    ...(call.maxAge !== undefined && { max_age: call.maxAge }),
  }
  // Validated in full (Trawl's own rules) before the keyless limit is spent or anything reserved.
  const run = prepare(deps, call, req.category, params, requestId)
  await call.beforeLookup?.()
  try {
    const outcome = await run()
    const answered = String(outcome.body.meta.engine ?? '')
    const unresponsive = [...choice.skipped, ...failedEngines((outcome.body.meta.route ?? []) as RouteAttempt[], answered)]
    const results = resultsOf(req.category, outcome.body.results, answered, req.page)
    return {
      body: answerOf(req.q, results, req.category === 'general' ? (outcome.body as unknown as SearchBody) : {}, unresponsive),
      usedMc: outcome.usedMc,
      balanceMc: outcome.balanceMc,
      cacheHit: outcome.cacheHit,
    }
  } catch (err) {
    if (err instanceof ApiError && err.code.startsWith('upstream_')) {
      deps.log.warn({ code: err.code }, `searxng: no provider answered: ${err.message}`)
      return empty([...choice.skipped, ...failedEngines(attemptsOf(err), undefined)])
    }
    throw err
  }
}

type Run = () => Promise<LookupOutcome<SearchBody | VerticalBody>>

/** The Trawl call of a category: its request checked by that endpoint's own schema now, run later. */
function prepare(deps: AppDeps, call: SearxngCall, category: Category, params: Record<string, unknown>, requestId: string): Run {
  const maxAge = call.maxAge
  if (category === 'general') {
    const request = normaliseSearch(parseWith(SearchParams, params), call.auth)
    return () => runSearch(deps, call.auth, request, { maxAge }, requestId, call.billing)
  }
  const spec = VERTICAL_SPECS[category]
  const schema = category === 'news' ? NewsParams : category === 'images' ? ImagesParams : VideosParams
  const request = spec.normalise(parseWith(schema, params) as Record<string, unknown>, call.auth)
  return () => runVertical(deps, call.auth, spec, request, { maxAge }, requestId, call.billing)
}

function answerOf(query: string, results: SearxngResult[], web: Partial<SearchBody>, unresponsive: Unresponsive[]): SearxngAnswer {
  const box = web.answer_box
  const answer = box?.answer ?? box?.snippet
  return {
    query,
    number_of_results: results.length,
    results,
    answers: answer ? [answer] : [],
    corrections: [],
    infoboxes: web.knowledge_graph ? [infoboxOf(web.knowledge_graph, String(web.meta?.engine ?? ''))] : [],
    suggestions: (web.related_searches ?? []).map((r) => r.query),
    unresponsive_engines: unresponsive,
  }
}

function infoboxOf(kg: NonNullable<SearchBody['knowledge_graph']>, engine: string) {
  return {
    infobox: kg.title,
    id: kg.website ?? kg.source?.link ?? null,
    content: kg.description ?? '',
    img_src: kg.image_url ?? null,
    urls: [...(kg.website ? [{ title: 'Website', url: kg.website }] : []), ...(kg.source ? [{ title: kg.source.name, url: kg.source.link }] : [])],
    attributes: Object.entries(kg.attributes ?? {}).map(([label, value]) => ({ label, value })),
    engine,
    engines: [engine],
  }
}

/** Python's urlparse: scheme, netloc, path, params, query, fragment. */
function parsedUrl(url: string): string[] {
  try {
    const u = new URL(url)
    return [u.protocol.replace(/:$/, ''), u.host, u.pathname, '', u.search.replace(/^\?/, ''), u.hash.replace(/^#/, '')]
  } catch {
    return ['', '', url, '', '', '']
  }
}

const UNIT_MS: Record<string, number> = { second: 1e3, minute: 6e4, min: 6e4, hour: 3.6e6, day: 8.64e7, week: 6.048e8, month: 2.592e9, year: 3.1536e10 }

/** A date as the engine printed it ("Mar 2, 2023", "3 days ago") in ISO 8601, or null. */
export function isoDate(text: string | null | undefined, now = Date.now()): string | null {
  if (!text) return null
  const relative = /^(\d+)\s+(second|minute|min|hour|day|week|month|year)s?\s+ago$/i.exec(text.trim())
  if (relative) return new Date(now - Number(relative[1]) * (UNIT_MS[relative[2]!.toLowerCase()] ?? 0)).toISOString()
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? null : new Date(ms).toISOString()
}

/** Trawl's items as SearXNG results; positions count from 1 on the page, score is 1/position. */
function resultsOf(category: Category, items: unknown[], engine: string, page: number): SearxngResult[] {
  return items.map((raw, i) => {
    const position = (raw as { position?: number }).position ?? (page - 1) * 10 + i + 1
    const common = { engine, engines: [engine], positions: [position], score: Math.round((1 / position) * 1e4) / 1e4, category, priority: '' }
    if (category === 'images') {
      const r = raw as ImageResult
      return {
        url: r.link ?? r.image_url,
        title: r.title ?? '',
        content: '',
        img_src: r.image_url,
        ...(r.thumbnail_url && { thumbnail_src: r.thumbnail_url }),
        ...(r.image_width && r.image_height && { resolution: `${r.image_width} x ${r.image_height}` }),
        ...(r.source && { source: r.source }),
        template: 'images.html',
        parsed_url: parsedUrl(r.link ?? r.image_url ?? ''),
        publishedDate: null,
        ...common,
      }
    }
    if (category === 'videos') {
      const r = raw as VideoResult
      const extra = { ...(r.image_url && { thumbnail: r.image_url }), ...(r.duration && { length: r.duration }), ...(r.channel && { author: r.channel }) }
      return { ...pageResult(r, extra, 'videos.html'), ...common }
    }
    if (category === 'news') {
      const r = raw as NewsResult
      const extra = { ...(r.image_url && { thumbnail: r.image_url }), ...(r.source && { source: r.source }) }
      return { ...pageResult(r, extra, 'default.html'), ...common }
    }
    return { ...pageResult(raw as OrganicResult, {}, 'default.html'), ...common }
  })
}

/** A result with a page (web, news, videos) in SearXNG's keys, the category's own (`extra`) after the snippet. */
function pageResult(r: OrganicResult, extra: Partial<SearxngResult>, template: string) {
  return { url: r.link, title: r.title, content: r.snippet ?? '', ...extra, template, parsed_url: parsedUrl(r.link), publishedDate: isoDate(r.date) }
}
