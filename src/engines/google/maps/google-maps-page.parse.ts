/**
 * The Google Maps web page (`/maps/place/…`, `/maps?cid=…`) embeds its first data in
 * `window.APP_INITIALIZATION_STATE=[…]`. For a place, slot [3][6] holds the place-details payload
 * as a `)]}'`-prefixed JSON string (the same payload `/maps/preview/place` returns), and slot
 * [3][5] a shorter summary whose [0][0] is the fid.
 */
import { balancedJsonAt } from '../../parse/json-text.ts'
import { at, FID_PATTERN, parseMapsJson, strAt } from './google-maps-json.ts'
import { isPlaceRecord } from './google-maps-place.parse.ts'

const MARKER = 'APP_INITIALIZATION_STATE='

/** The parsed APP_INITIALIZATION_STATE array of a Maps page, or undefined when the page has none. */
export function appStateOf(html: string): unknown[] | undefined {
  const start = html.indexOf(MARKER)
  if (start < 0) return undefined
  const json = balancedJsonAt(html, start + MARKER.length)
  if (!json) return undefined
  try {
    const state: unknown = JSON.parse(json)
    return Array.isArray(state) ? state : undefined
  } catch {
    return undefined
  }
}

/** The place-details payload carried by a Maps page's state (its record at [6]), if any. */
export function placePayloadOf(state: unknown): unknown[] | undefined {
  for (const slot of [6, 5]) {
    const raw = strAt(state, 3, slot)
    const payload = raw ? parseMapsJson(raw) : undefined
    if (Array.isArray(payload) && isPlaceRecord(at(payload, 6))) return payload
  }
  return undefined
}

/** The fid of the place summary at [3][5] ([0][0] of that payload). */
export function summaryFidOf(state: unknown): string | undefined {
  const raw = strAt(state, 3, 5)
  const fid = raw ? strAt(parseMapsJson(raw), 0, 0) : undefined
  return fid && FID_PATTERN.test(fid) ? fid.toLowerCase() : undefined
}
