import type { z } from 'zod'
import { toCredits } from '../../../billing/money.ts'
import type { AppDeps } from '../../../deps.ts'
import { planEngines, sentParams } from '../../../engines/choice.ts'
import type { OrganicResult, VerticalRequest } from '../../../engines/engine.types.ts'
import { ApiError, isApiError } from '../../../errors.ts'
import type { AuthContext } from '../../../http/auth.ts'
import { parseWith } from '../../../http/parse-input.ts'
import { SearchParams } from '../../search/search.schema.ts'
import { normaliseSearch, runSearch, type SearchBody } from '../../search/search.service.ts'
import { runVertical, type VerticalBody } from '../../search/verticals/vertical.service.ts'
import { VERTICAL_SPECS } from '../../search/verticals/vertical.specs.ts'
import { type SerperEndpoint, SerperQuery } from './serper.schema.ts'

/**
 * One Serper query answered by the Trawl endpoint of the same vertical: /v1/search for /search,
 * /v1/<vertical> for the others, with its price, refunds and ledger rows. Validation (and the engine
 * choice) happens in `prepareQuery`, before anything is billed.
 */

export interface SerperOutcome {
  body: Record<string, unknown>
  usedMc: number
  balanceMc: number | null
  cacheHit: boolean
}

export interface PreparedQuery {
  run(): Promise<SerperOutcome>
}

const DEPTHS = [10, 20, 30, 50, 100] as const
/** The Trawl depth holding `num` results: Trawl bills by depth (10 results 1 credit, 20 two, 100 seven). */
const depthFor = (num: number) => DEPTHS.find((d) => d >= num) ?? 100

const SERPER_NAMES: Record<string, string> = { country: 'gl', language: 'hl' }

/** Trawl's validation, its messages in Serper's parameter names. */
function parseAs<S extends z.ZodType>(schema: S, input: unknown, prefix: string): z.infer<S> {
  try {
    return parseWith(schema, input)
  } catch (err) {
    if (!isApiError(err) || err.code !== 'invalid_request') throw err
    let message = err.message
    for (const [trawl, serper] of Object.entries(SERPER_NAMES)) message = message.replace(new RegExp(`\\b${trawl}\\b`, 'g'), serper)
    message = message.replace(/^(\w+): \1\b/, '$1') // "gl: country must …" once renamed
    throw new ApiError('invalid_request', `${prefix}${message}`, err.opts)
  }
}

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null))

const camelKey = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

/** A Trawl item in Serper's spelling: camelCase keys, nulls and empty lists left out. */
function camel(item: object, rename: Record<string, string> = {}, drop: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(item)) {
    if (value === null || value === undefined || drop.includes(key)) continue
    if (Array.isArray(value) && value.length === 0) continue
    out[rename[key] ?? camelKey(key)] = value
  }
  return out
}

/** Which Trawl parameters each endpoint takes; Serper's other fields are accepted and have no effect there. */
function trawlParams(endpoint: SerperEndpoint, p: SerperQuery, depth: number): Record<string, unknown> {
  const locale = { q: p.q, country: p.gl, language: p.hl }
  switch (endpoint) {
    case 'search':
      return { ...locale, num: depth, page: p.page, tbs: p.tbs, location: p.location, autocorrect: p.autocorrect }
    case 'news':
      return { ...locale, num: depth, page: p.page, tbs: p.tbs, location: p.location }
    case 'images':
    case 'videos':
      return { ...locale, num: depth, page: p.page, tbs: p.tbs }
    case 'places':
    case 'shopping':
      return { ...locale, page: p.page, location: p.location }
    case 'maps':
      return { ...locale, page: p.page, location: p.location, ll: p.ll }
    case 'scholar':
      return { q: p.q, language: p.hl, num: depth, page: p.page }
    case 'patents':
      return { q: p.q, num: depth, page: p.page }
    case 'autocomplete':
      return locale
  }
}

export function prepareQuery(deps: AppDeps, auth: AuthContext, endpoint: SerperEndpoint, input: unknown, requestId: string, prefix = ''): PreparedQuery {
  // A field sent as null is a field not sent (clients that send every field of their type).
  const p = parseAs(
    SerperQuery,
    input !== null && typeof input === 'object' && !Array.isArray(input) ? defined(input as Record<string, unknown>) : input,
    prefix,
  )
  const depth = depthFor(p.num ?? 10)
  const params = defined(trawlParams(endpoint, p, depth))
  const echo = (request: { country?: string; language?: string }, engine: unknown) =>
    defined({
      q: p.q,
      gl: request.country ?? p.gl?.toLowerCase() ?? 'us',
      hl: request.language ?? p.hl ?? 'en',
      type: endpoint,
      num: p.num,
      page: p.page ?? (endpoint === 'autocomplete' ? undefined : 1),
      autocorrect: endpoint === 'search' ? (p.autocorrect ?? true) : undefined,
      tbs: p.tbs,
      location: p.location,
      ll: p.ll,
      engine: typeof engine === 'string' ? engine : 'google',
    })

  if (endpoint === 'search') {
    const search = parseAs(SearchParams, params, prefix)
    const request = normaliseSearch(search, auth)
    planEngines(deps.engines, request.engine, { vertical: 'search', params: sentParams(request) })
    return {
      async run() {
        const outcome = await runSearch(deps, auth, request, {}, requestId)
        const body = {
          searchParameters: echo(request, outcome.body.meta.engine),
          ...searchSections(outcome.body, p.num ?? 10),
          credits: toCredits(outcome.usedMc),
        }
        return { body, usedMc: outcome.usedMc, balanceMc: outcome.balanceMc, cacheHit: outcome.cacheHit }
      },
    }
  }
  const spec = VERTICAL_SPECS[endpoint]
  const request = spec.normalise(parseAs(spec.schema, params, prefix) as Record<string, unknown>, auth)
  for (const engine of planEngines(deps.engines, request.engine ?? deps.engines.primary, { vertical: request.endpoint, params: sentParams(request) })) {
    deps.engines.get(engine)?.validateVertical?.(request)
  }
  return {
    async run() {
      const outcome = await runVertical(deps, auth, spec, request, {}, requestId)
      const limit = p.num ?? (request.num ? 10 : undefined)
      const body = {
        searchParameters: echo(request, outcome.body.meta.engine),
        ...verticalSections(endpoint, outcome.body, request, limit),
        credits: toCredits(outcome.usedMc),
      }
      return { body, usedMc: outcome.usedMc, balanceMc: outcome.balanceMc, cacheHit: outcome.cacheHit }
    },
  }
}

/** /v1/search's body under Serper's key names. */
function searchSections(body: SearchBody, num: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    organic: body.results.slice(0, num).map((r: OrganicResult) => camel(r, {}, ['domain', 'displayed_link', 'sources'])),
  }
  const kg = body.knowledge_graph
  if (kg) {
    out.knowledgeGraph = defined({
      title: kg.title,
      type: kg.type,
      website: kg.website,
      imageUrl: kg.image_url,
      description: kg.description,
      descriptionSource: kg.source?.name,
      descriptionLink: kg.source?.link,
      attributes: kg.attributes,
    })
  }
  if (body.answer_box) out.answerBox = camel(body.answer_box, {}, ['type', 'domain'])
  if (body.people_also_ask?.length) out.peopleAlsoAsk = body.people_also_ask.map((q) => camel(q))
  if (body.related_searches?.length) out.relatedSearches = body.related_searches.map((q) => ({ query: q.query }))
  if (body.top_stories?.length) out.topStories = body.top_stories.map((s) => camel(s))
  if (body.places?.length) out.places = body.places.map((pl) => camel(pl, { type: 'category' }))
  return out
}

/** A vertical's results under the key Serper uses for it. */
function verticalSections(endpoint: Exclude<SerperEndpoint, 'search'>, body: VerticalBody, request: VerticalRequest, limit: number | undefined) {
  const results = (limit ? body.results.slice(0, limit) : body.results) as object[]
  switch (endpoint) {
    case 'images':
      return { images: results.map((r) => camel(r)) }
    case 'news':
      return { news: results.map((r) => camel(r, {}, ['domain'])) }
    case 'videos':
      return { videos: results.map((r) => camel(r, {}, ['domain'])) }
    case 'places':
      return { places: results.map((r) => camel(r, { type: 'category' })) }
    case 'maps':
      return { ...(request.ll && { ll: request.ll }), places: results.map((r) => camel(r)) }
    case 'shopping':
      return { shopping: results.map((r) => camel(r)) }
    case 'scholar':
      return { organic: results.map((r) => camel(r, {}, ['domain'])) }
    case 'patents':
      return { organic: results.map((r) => camel(r)) }
    case 'autocomplete':
      return { suggestions: results.map((r) => ({ value: (r as { value: string }).value })) }
  }
}
