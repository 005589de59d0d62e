/**
 * The Google Maps search request: `GET https://www.google.com/search?tbm=map&…&pb=…`, the call the
 * Maps web app makes for a search. It answers with `)]}'`-prefixed positional JSON, 20 places per
 * page. The viewport and the paging offset travel inside `pb` (Google's protobuf-in-URL form:
 * `!<field><type><value>`, `m` = sub-message with that many following tokens).
 */
import { ApiError } from '../../../errors.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { encodeUule, googleHeaders } from '../google-search.url.ts'

const ENDPOINT = 'https://www.google.com/search'

/** Places per Maps result page (`!7i20`); positions and the `!8i` offset count in these. */
export const MAPS_PAGE_SIZE = 20

// The viewport the Maps web app reports for a 1024x768 window; Google's own pages echo these
// (`[[altitude, lng, lat], …, [1024, 768], 13.1]`). 13.1 is the vertical field of view in degrees.
const VIEW_WIDTH = 1024
const VIEW_HEIGHT = 768
const FIELD_OF_VIEW = 13.1
const DEFAULT_ZOOM = 14
// Metres per pixel at zoom 0 on the equator (Web Mercator, 256-px tiles).
const METRES_PER_PIXEL_Z0 = 156543.03392

// Result options the web app sends: 10b1 and the 12m / 19m / 34m blocks ask for the full place
// records (hours, phone, photos) rather than bare pins. Taken from requests the Maps web app made.
const RESULT_OPTIONS =
  '!10b1' +
  '!12m22!1m3!18b1!30b1!34e1!2m3!5m1!6e2!20e3!4b0!10b1!12b1!13b1!16b1!17m1!3e1!20m3!5e2!6b1!14b1!46m1!1b0!96b1' +
  '!19m4!2m3!1i360!2i120!4i8' +
  '!34m19!2b1!3b1!4b1!6b1!8m6!1b1!3b1!4b1!5b1!6b1!7b1!9b1!12b1!14b1!20b1!23b1!25b1!26b1!31b1'

export interface MapsViewport {
  lat: number
  lng: number
  zoom: number
}

/** `@40.7455096,-74.0083012,14z` → its parts; the zoom defaults to 14 when left out. */
export function parseLl(ll: string): MapsViewport {
  const m = /^@?\s*(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)(?:\s*,\s*(\d{1,2}(?:\.\d+)?)z)?\s*$/i.exec(ll)
  const lat = Number(m?.[1])
  const lng = Number(m?.[2])
  if (!m || Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new ApiError('invalid_request', 'll must look like @40.7455096,-74.0083012,14z')
  const zoom = m[3] === undefined ? DEFAULT_ZOOM : Math.min(21, Math.max(1, Number(m[3])))
  return { lat, lng, zoom }
}

/**
 * The camera distance (`!1d`, metres) at which the Maps window shows `zoom`: half the view height
 * in ground metres over tan(half the field of view). Google's own pages satisfy this to 0.2%.
 */
export function viewportAltitude(lat: number, zoom: number): number {
  const metresPerPixel = (METRES_PER_PIXEL_Z0 * Math.cos((lat * Math.PI) / 180)) / 2 ** zoom
  return ((VIEW_HEIGHT / 2) * metresPerPixel) / Math.tan(((FIELD_OF_VIEW / 2) * Math.PI) / 180)
}

/** The `pb` of a Maps search: optional viewport, page size, offset, result options. */
export function buildMapsPb(viewport: MapsViewport | undefined, offset: number): string {
  const parts: string[] = []
  if (viewport) {
    const altitude = Number(viewportAltitude(viewport.lat, viewport.zoom).toFixed(3))
    parts.push(`!4m12!1m3!1d${altitude}!2d${viewport.lng}!3d${viewport.lat}!2m3!1f0!2f0!3f0!3m2!1i${VIEW_WIDTH}!2i${VIEW_HEIGHT}!4f${FIELD_OF_VIEW}`)
  }
  parts.push(`!7i${MAPS_PAGE_SIZE}`)
  if (offset > 0) parts.push(`!8i${offset}`)
  parts.push(RESULT_OPTIONS)
  return parts.join('')
}

/**
 * The Maps search URL and headers for `req`. `ll` becomes the viewport; without it Google picks
 * the area itself (from `uule` when location/uule is given, else from the connection). `page`
 * becomes the offset `(page-1)*20`.
 */
export function buildGoogleMapsRequest(req: VerticalRequest): GoogleRequest {
  const language = req.language ?? 'en'
  const page = req.page ?? 1
  const viewport = req.ll ? parseLl(req.ll) : undefined
  const params: [string, string][] = [
    ['tbm', 'map'],
    ['authuser', '0'],
    ['hl', language],
    ['gl', req.country ?? 'us'],
    ['q', req.q ?? ''],
  ]
  const uule = req.uule?.trim() || (req.location?.trim() ? encodeUule(req.location.trim()) : undefined)
  if (uule) params.push(['uule', uule])
  params.push(['pb', buildMapsPb(viewport, (page - 1) * MAPS_PAGE_SIZE)])
  const query = params.map(([k, v]) => `${k}=${encodeParam(k, v)}`).join('&')
  return { url: `${ENDPOINT}?${query}`, headers: mapsHeaders(language) }
}

/** Headers of the Maps web app's XHRs: the shared Google set with a JSON-ish Accept and a Maps referer. */
export function mapsHeaders(language: string): Record<string, string> {
  return { ...googleHeaders(language), Accept: '*/*', Referer: 'https://www.google.com/maps/' }
}

// `pb` keeps its "!" separators readable (encodeURIComponent leaves "!" alone); uule keeps its "+".
function encodeParam(key: string, value: string): string {
  if (key === 'uule') return value.replace(/[^A-Za-z0-9+_-]/g, (c) => encodeURIComponent(c))
  return encodeURIComponent(value)
}
