import { isIP } from 'node:net'
import { planEngines, sentParams } from '../../engines/choice.ts'
import type { Engines } from '../../engines/registry.ts'
import { ApiError } from '../../errors.ts'
import type { AuthContext } from '../../http/auth.ts'
import { parseWith } from '../../http/parse-input.ts'
import { isPublicAddress, PRIVATE_ADDRESS_MESSAGE, stripBrackets } from '../../net/address-policy.ts'
import { parsePageUrl } from '../../reader/page-read.ts'
import { SearchParams } from '../search/search.schema.ts'
import { normaliseSearch } from '../search/search.service.ts'
import { NewsParams } from '../search/verticals/vertical.schemas.ts'
import { VERTICAL_SPECS } from '../search/verticals/vertical.specs.ts'
import { SAVED_SEARCH_FIELDS } from './monitors.schema.ts'

export type MonitorEndpoint = 'search' | 'news' | 'webpage'

/**
 * A search or news monitor's saved search as stored and echoed in `request`: the realtime
 * endpoint's normalised request (defaults filled in, engine resolved) without endpoint and page,
 * with `num` the number of top results watched (1 to 100).
 */
export interface SavedSearch {
  engine: string
  q: string
  country: string
  language: string
  num: number
  [option: string]: unknown
}

export interface WatchedPage {
  url: string
}

/** Depths an engine is asked for (the values `num` takes): the smallest that covers the watched num. */
const DEPTHS = [10, 20, 30, 50, 100] as const
export const depthFor = (num: number) => DEPTHS.find((d) => d >= num) ?? 100

export type SavedSearchInput = Partial<Record<(typeof SAVED_SEARCH_FIELDS)[number] | 'url', unknown>>

/**
 * Validates a monitor's saved search exactly as the realtime endpoint would validate the same
 * request (its strict schema, its normaliser, the engine layer's choice checks), so a monitor can
 * never hold a search that /v1/search or /v1/news would refuse. Throws 400 invalid_request naming
 * the parameter.
 */
export function normaliseSavedSearch(
  deps: { engines: Engines; config: { allowPrivateNetwork: boolean } },
  auth: AuthContext,
  endpoint: MonitorEndpoint,
  input: SavedSearchInput,
): SavedSearch | WatchedPage {
  const sent = Object.keys(input).filter((k) => input[k as keyof SavedSearchInput] !== undefined)
  if (endpoint === 'webpage') {
    const other = sent.find((k) => k !== 'url')
    if (other) throw new ApiError('invalid_request', `${other} applies to search and news monitors; a webpage monitor takes only url`)
    if (typeof input.url !== 'string') throw new ApiError('invalid_request', 'url is required for webpage monitors')
    return { url: publicPageUrl(input.url, deps.config.allowPrivateNetwork) }
  }
  if (input.url !== undefined) throw new ApiError('invalid_request', `url applies to webpage monitors; ${endpoint} monitors take q`)
  if (input.q === undefined) throw new ApiError('invalid_request', `q is required for ${endpoint} monitors`)
  if (endpoint === 'news') {
    const searchOnly = sent.find((k) => k === 'device' || k === 'safe')
    if (searchOnly) throw new ApiError('invalid_request', `${searchOnly} is only supported on search monitors`)
  }
  const watched = input.num === undefined ? 10 : Number(input.num)
  const realtime: Record<string, unknown> = {}
  for (const key of SAVED_SEARCH_FIELDS) if (input[key] !== undefined) realtime[key] = input[key]
  realtime.num = depthFor(watched)

  let request: Record<string, unknown>
  if (endpoint === 'search') {
    const req = normaliseSearch(parseWith(SearchParams, realtime), auth)
    planEngines(deps.engines, req.engine, { vertical: 'search', params: sentParams(req) })
    request = { ...req }
  } else {
    const req = VERTICAL_SPECS.news.normalise(parseWith(NewsParams, realtime), auth)
    const engine = req.engine ?? deps.engines.primary
    for (const name of planEngines(deps.engines, engine, { vertical: 'news', params: sentParams(req) })) deps.engines.get(name)?.validateVertical?.(req)
    request = { ...req, engine }
  }
  const { endpoint: _endpoint, page: _page, ...saved } = request
  return { ...saved, num: watched } as SavedSearch
}

/** A public http(s) page: literal private addresses and localhost are refused here; names resolving to one fail at run time. */
function publicPageUrl(raw: string, allowPrivate: boolean): string {
  const url = parsePageUrl(raw)
  if (!allowPrivate) {
    const host = stripBrackets(url.hostname).toLowerCase()
    const local = isIP(host) ? !isPublicAddress(host) : host === 'localhost' || host.endsWith('.localhost')
    if (local) throw new ApiError('invalid_request', PRIVATE_ADDRESS_MESSAGE)
  }
  return url.href
}
