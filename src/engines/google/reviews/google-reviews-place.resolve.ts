/**
 * Reviews are listed by feature id (fid). A request that names the place by place_id or cid is
 * resolved first with one fetch of the Maps web page for it — `https://www.google.com/maps/place/?q=place_id:<id>`
 * or `https://www.google.com/maps?cid=<cid>` — whose APP_INITIALIZATION_STATE carries the place
 * payload (fid at [6][10]). Fallbacks, in order: the fid in the final URL after Google's redirect
 * (`…/data=!…!1s0x…:0x…`), the place summary at state [3][5], and the fid text in the page.
 */
import type { VerticalRequest } from '../../engine.types.ts'
import { googleHeaders } from '../google-search.url.ts'
import { at, cidFromFid, cidHex, FID_PATTERN, parseMapsJson } from '../maps/google-maps-json.ts'
import { appStateOf, placePayloadOf, summaryFidOf } from '../maps/google-maps-page.parse.ts'
import { placeFromRecord } from '../maps/google-maps-place.parse.ts'

export interface PlaceLookupRequest {
  url: string
  headers: Record<string, string>
}

export interface PlaceIdentity {
  fid?: string
  place_id?: string
  cid?: string
  title?: string
  /** Whether the body was a Maps page or payload at all (false: an unknown page). */
  maps_page: boolean
}

/** The Maps page request for a place_id or cid (the caller resolves only when no fid was given). */
export function buildPlaceLookupRequest(req: Pick<VerticalRequest, 'place_id' | 'cid' | 'language' | 'country'>): PlaceLookupRequest {
  const language = req.language ?? 'en'
  const locale = `hl=${encodeURIComponent(language)}&gl=${encodeURIComponent(req.country ?? 'us')}`
  const url = req.cid
    ? `https://www.google.com/maps?cid=${encodeURIComponent(req.cid)}&${locale}`
    : `https://www.google.com/maps/place/?q=place_id:${encodeURIComponent(req.place_id ?? '')}&${locale}`
  return { url, headers: googleHeaders(language) }
}

/**
 * The identity of the place a Maps page (or place payload) shows. `cid`, when known, picks the
 * right fid out of a page that mentions several places.
 */
export function parsePlaceIdentity(body: string, finalUrl?: string, cid?: string): PlaceIdentity {
  const json = parseMapsJson(body)
  const state = json === undefined ? appStateOf(body) : undefined
  const data = json ?? (state ? placePayloadOf(state) : undefined)
  const maps_page = json !== undefined || state !== undefined
  const place = placeFromRecord(at(data, 6))
  const fid = place?.fid ?? fidInUrl(finalUrl) ?? summaryFidOf(state) ?? (state ? fidInText(body, cid) : undefined)
  if (!fid) return { maps_page }
  const out: PlaceIdentity = { fid, maps_page }
  const placeId = place?.place_id
  const resolvedCid = place?.cid ?? cidFromFid(fid)
  if (placeId) out.place_id = placeId
  if (resolvedCid) out.cid = resolvedCid
  if (place?.title) out.title = place.title
  return out
}

function fidInUrl(url: string | undefined): string | undefined {
  if (!url) return undefined
  let decoded = url
  try {
    decoded = decodeURIComponent(url)
  } catch {
    // keep the raw URL
  }
  const m = /!1s(0x[0-9a-f]{1,16}:0x[0-9a-f]{1,16})/i.exec(decoded)
  return m?.[1]?.toLowerCase()
}

/** A fid written in the page: the one ending in the cid's hex when a cid is known, else the only one. */
function fidInText(body: string, cid: string | undefined): string | undefined {
  const found = new Set<string>()
  for (const m of body.matchAll(/0x[0-9a-f]{1,16}:0x[0-9a-f]{1,16}/gi)) {
    const fid = m[0].toLowerCase()
    if (!fid.startsWith('0x0:') && FID_PATTERN.test(fid)) found.add(fid)
  }
  const hex = cid ? cidHex(cid) : undefined
  if (hex) return [...found].find((fid) => fid.endsWith(`:${hex}`))
  return found.size === 1 ? [...found][0] : undefined
}
