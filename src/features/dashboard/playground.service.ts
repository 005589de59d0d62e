import { z } from 'zod'
import type { LookupOutcome } from '../../billing/billed-lookup.ts'
import { toMc } from '../../billing/money.ts'
import type { AppDeps } from '../../deps.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { parseWith } from '../../http/parse-input.ts'
import { assertRenderable } from '../../reader/render.read.ts'
import { link } from '../../text/markdown.text.ts'
import { authForKeyId, getAccountRow } from '../accounts/accounts.service.ts'
import { listLiveKeys } from '../accounts/accounts.store.ts'
import { renderContextMarkdown } from '../context/context.markdown.ts'
import { ContextParams } from '../context/context.schema.ts'
import { normaliseContext, runContext } from '../context/context.service.ts'
import type { ResearchTask } from '../context/research/research.response.ts'
import { ResearchParams } from '../context/research/research.schema.ts'
import { getResearch, startResearch } from '../context/research/research.service.ts'
import { CrawlParams } from '../crawl/crawl.schema.ts'
import { startCrawl } from '../crawl/crawl.service.ts'
import { MapParams } from '../map/map.schema.ts'
import { runMap } from '../map/map.service.ts'
import { runExtract } from '../reading/extract.service.ts'
import { ExtractParams, rejectSwappedUrlField, WebpageParams } from '../reading/reading.schema.ts'
import { runWebpage } from '../reading/webpage.service.ts'
import { MARKDOWN_VERTICALS, type OutputFormat, renderSearchResponse, type Vertical, validateOutputOptions } from '../search/output/output.ts'
import { SearchParams } from '../search/search.schema.ts'
import { normaliseSearch, runSearch } from '../search/search.service.ts'
import { explainParamElsewhere } from '../search/verticals/param-homes.ts'
import { runVertical } from '../search/verticals/vertical.service.ts'
import { VERTICAL_SPECS, type VerticalName } from '../search/verticals/vertical.specs.ts'
import type { SessionUser } from './sessions.service.ts'

/**
 * The dashboard's playground (docs/dashboard.md): runs any search vertical for the signed-in user,
 * through the same parsing, normalising, engines and billing as GET|POST /v1/<vertical>, on one of
 * the user's own API keys: so it is billed, limited (the key's monthly limit, the account's spend
 * cap, the key's rate limit) and recorded exactly like an API call with that key. The key is the
 * one the user picks, or by default the oldest live key they created (the owner falls back to the
 * account's oldest key). No key is created behind the user's back.
 */

/** Page reading, site listing and crawls: their JSON bodies, run by the endpoints' own services. */
type PageEndpoint = 'webpage' | 'extract' | 'map' | 'crawl'

/** The search verticals, POST /v1/context (passages for a question), POST /v1/research and the page endpoints. */
export type PlaygroundEndpoint = Vertical | 'context' | 'research' | PageEndpoint

const PAGE_ENDPOINTS = {
  webpage: { schema: WebpageParams, summary: 'Read one page', markdown: true },
  extract: { schema: ExtractParams, summary: 'Read up to 20 pages', markdown: true },
  map: { schema: MapParams, summary: 'List a site’s URLs', markdown: false },
  crawl: { schema: CrawlParams, summary: 'Crawl a site (runs in the background)', markdown: false },
} as const

const isPageEndpoint = (name: string): name is PageEndpoint => Object.hasOwn(PAGE_ENDPOINTS, name)

const PLAYGROUND_VERTICALS = ['search', 'context', 'research', ...Object.keys(VERTICAL_SPECS), ...Object.keys(PAGE_ENDPOINTS)] as PlaygroundEndpoint[]

export const isPlaygroundVertical = (name: string): name is PlaygroundEndpoint => (PLAYGROUND_VERTICALS as string[]).includes(name)

/** Keys a user may bill in the playground: members their own (as for managing keys), the owner any. */
export async function playgroundKeys(store: AppDeps['store'], user: SessionUser) {
  const keys = await listLiveKeys(store.db, user.accountId)
  const usable = keys.filter((k) => user.role === 'owner' || k.user_id === user.id)
  // The user's own keys first, oldest first: the first is the default.
  return [...usable.filter((k) => k.user_id === user.id), ...usable.filter((k) => k.user_id !== user.id)].map((k) => ({
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    own: k.user_id === user.id,
  }))
}

/** The AuthContext the playground acts as: `keyId` when given (it must be usable), else the default key. */
export async function playgroundAuth(store: AppDeps['store'], user: SessionUser, keyId?: string): Promise<AuthContext> {
  const keys = await playgroundKeys(store, user)
  const key = keyId === undefined ? keys[0] : keys.find((k) => k.id === keyId)
  if (!key) {
    if (keyId !== undefined) throw new ApiError('not_found', `key ${keyId} does not exist or is not one you may use`)
    throw new ApiError('invalid_request', 'the playground bills one of your API keys: create a key first')
  }
  return authForKeyId(store, key.id)
}

/** The verticals and their parameters (JSON Schema, from the same zod schemas the API validates with). */
export function playgroundVerticals() {
  const own = {
    search: [SearchParams, 'Web search'],
    context: [ContextParams, 'Passages that answer a question'],
    research: [ResearchParams, RESEARCH_SUMMARY],
  } as const
  const schemaOf = (name: PlaygroundEndpoint) =>
    name in own ? own[name as keyof typeof own][0] : isPageEndpoint(name) ? PAGE_ENDPOINTS[name].schema : VERTICAL_SPECS[name as VerticalName].schema
  const summaryOf = (name: PlaygroundEndpoint) =>
    name in own ? own[name as keyof typeof own][1] : isPageEndpoint(name) ? PAGE_ENDPOINTS[name].summary : VERTICAL_SPECS[name as VerticalName].summary
  return PLAYGROUND_VERTICALS.map((name) => {
    const json = z.toJSONSchema(schemaOf(name), { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] }
    return {
      name,
      path: `/v1/${name}`,
      summary: summaryOf(name),
      markdown: name === 'context' || name === 'research' || (isPageEndpoint(name) ? PAGE_ENDPOINTS[name].markdown : MARKDOWN_VERTICALS.has(name)),
      params: json.properties ?? {},
      required: json.required ?? [],
    }
  })
}

export interface PlaygroundRun {
  auth: AuthContext
  outcome: Pick<LookupOutcome<object>, 'usedMc' | 'balanceMc' | 'cacheHit'>
  /** The body as the API would send it for the asked format and fields (JSON formats). */
  json: unknown
  /** The same body as format=markdown, where the vertical has a Markdown layout. */
  markdown: string | null
}

/** One billed call of `vertical` with `params` (the realtime endpoint's exact parameters). */
export async function runPlayground(
  deps: AppDeps,
  user: SessionUser,
  vertical: PlaygroundEndpoint,
  params: unknown,
  keyId: string | undefined,
  requestId: string,
): Promise<PlaygroundRun> {
  const auth = await playgroundAuth(deps.store, user, keyId)
  if (vertical === 'context') {
    const p = parseWith(ContextParams, params)
    await deps.limiter.consume(auth.keyId, auth.rps)
    const outcome = await runContext(deps, auth, normaliseContext(p, auth), requestId)
    return { auth, outcome, json: outcome.body, markdown: renderContextMarkdown(outcome.body) }
  }
  if (vertical === 'research') return { auth, ...(await runResearch(deps, auth, params, requestId)) }
  if (isPageEndpoint(vertical)) return { auth, ...(await runPageEndpoint(deps, auth, vertical, params, requestId)) }
  const explain = explainParamElsewhere(`/v1/${vertical}`)
  let outcome: LookupOutcome<object>
  let format: OutputFormat
  let fields: string | undefined
  if (vertical === 'search') {
    const p = parseWith(SearchParams, params, explain)
    format = p.format ?? 'json'
    fields = p.fields
    validateOutputOptions('search', { format, fields }) // before anything is reserved
    await deps.limiter.consume(auth.keyId, auth.rps)
    outcome = await runSearch(deps, auth, normaliseSearch(p, auth), { maxAge: p.max_age, includeContent: p.include_content }, requestId)
  } else {
    const spec = VERTICAL_SPECS[vertical as VerticalName]
    const p = parseWith(spec.schema, params, explain) as Record<string, unknown>
    format = (p.format as OutputFormat | undefined) ?? 'json'
    fields = p.fields as string | undefined
    validateOutputOptions(vertical, { format, fields })
    await deps.limiter.consume(auth.keyId, auth.rps)
    outcome = await runVertical(deps, auth, spec, spec.normalise(p, auth), { maxAge: p.max_age as number | undefined }, requestId)
  }
  const body = outcome.body as Parameters<typeof renderSearchResponse>[1]
  // One call, both views: the JSON pane shows the asked JSON format (json when markdown was asked).
  const jsonText = renderSearchResponse(vertical, body, { format: format === 'markdown' ? 'json' : format, fields }).payload
  const markdown = MARKDOWN_VERTICALS.has(vertical) ? renderSearchResponse(vertical, body, { format: 'markdown' }).payload : null
  return { auth, outcome, json: JSON.parse(jsonText) as unknown, markdown } satisfies PlaygroundRun
}

/** The page's content as Markdown when it was read as Markdown (format=markdown, the default). */
const pageMarkdown = (page: { url: string; title: string | null; markdown?: string }) =>
  page.markdown == null ? null : `<!-- ${page.url} -->\n${page.title ? `# ${page.title}\n\n` : ''}${page.markdown}`

/**
 * POST /v1/webpage, /v1/extract, /v1/map and /v1/crawl as their routes run them: the same parsing,
 * rate limit, services and billing. A crawl is only started here (its `limit` reserved, as the API
 * does); the app follows it through GET {app}/api/v1/crawls/{id}.
 */
async function runPageEndpoint(deps: AppDeps, auth: AuthContext, endpoint: PageEndpoint, params: unknown, requestId: string) {
  if (endpoint === 'webpage' || endpoint === 'extract') rejectSwappedUrlField(params, endpoint)
  if (endpoint === 'webpage') {
    const p = parseWith(WebpageParams, params)
    await deps.limiter.consume(auth.keyId, auth.rps)
    const outcome = await runWebpage(deps, auth, p, requestId)
    return { outcome, json: outcome.body as unknown, markdown: pageMarkdown(outcome.body) }
  }
  if (endpoint === 'extract') {
    const p = parseWith(ExtractParams, params)
    await deps.limiter.consume(auth.keyId, auth.rps)
    const outcome = await runExtract(deps, auth, p, requestId)
    const pages = outcome.body.results.map(pageMarkdown).filter((m) => m != null)
    return { outcome, json: outcome.body as unknown, markdown: pages.length ? pages.join('\n\n---\n\n') : null }
  }
  if (endpoint === 'map') {
    const p = parseWith(MapParams, params)
    await deps.limiter.consume(auth.keyId, auth.rps)
    const outcome = await runMap(deps, auth, p, requestId)
    return { outcome: { ...outcome, cacheHit: false }, json: outcome.body as unknown, markdown: null }
  }
  const p = parseWith(CrawlParams, params)
  assertRenderable(deps.renderer, p.render)
  await deps.limiter.consume(auth.keyId, auth.rps)
  const { task, balanceMc } = await startCrawl(deps, auth, p, requestId)
  return { outcome: { usedMc: toMc(task.credits_reserved), balanceMc, cacheHit: false }, json: task as unknown, markdown: null }
}

const RESEARCH_SUMMARY = 'A cited report on a question (waits for the job)'
/** How long the playground waits for a research job: below the 120 s a proxy or browser may allow a request. */
const RESEARCH_WAIT_MS = 110_000
const RESEARCH_POLL_MS = 250
const RESEARCH_ENDED = new Set(['completed', 'failed', 'canceled'])

/**
 * POST /v1/research as its route runs it (the same parsing, rate limit, checks and hold), then the
 * job waited for here, since the screen has no way to follow a job of this kind: up to 110 s, then
 * the task as it is (it goes on; GET /v1/research/{id} reads it). Once ended, what it cost is its
 * credits_used (the unused part of the hold refunded) and the balance is read after the refund.
 */
async function runResearch(deps: AppDeps, auth: AuthContext, params: unknown, requestId: string) {
  const p = parseWith(ResearchParams, params)
  await deps.limiter.consume(auth.keyId, auth.rps)
  const { task: started, balanceMc } = await startResearch(deps, auth, p, requestId)
  let task = started
  for (const until = Date.now() + RESEARCH_WAIT_MS; !RESEARCH_ENDED.has(task.status) && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, RESEARCH_POLL_MS))
    task = await getResearch(deps.store, auth.accountId, task.id)
  }
  const ended = RESEARCH_ENDED.has(task.status)
  const outcome = ended
    ? { usedMc: toMc(task.credits_used), balanceMc: (await getAccountRow(deps.store, auth.accountId)).balance_mc, cacheHit: false }
    : { usedMc: toMc(task.credits_reserved), balanceMc, cacheHit: false }
  return { outcome, json: task as unknown, markdown: researchMarkdown(task) }
}

/** The report with its cited sources as links, the data of output_schema, or where the job stands. */
function researchMarkdown(task: ResearchTask): string {
  const r = task.result
  if (!r) {
    const why = task.error ? `: ${task.error.code}: ${task.error.message}` : ''
    return RESEARCH_ENDED.has(task.status)
      ? `Research ${task.id} ${task.status}${why}.`
      : `Research ${task.id} is still ${task.status}; it goes on, and GET /v1/research/${task.id} with your key reads it.`
  }
  if (r.format === 'json') return `\`\`\`json\n${JSON.stringify(r.data ?? null, null, 2)}\n\`\`\``
  const cited = new Set(r.cited)
  const sources = task.sources.filter((s) => cited.has(s.n)).map((s) => `[${s.n}] ${link(s.title || s.url, s.url)}`)
  return sources.length ? `${(r.report ?? '').trim()}\n\n## Sources\n\n${sources.join('\n')}` : (r.report ?? '')
}
