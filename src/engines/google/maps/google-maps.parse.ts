/** Parses a Google Maps search answer (tbm=map JSON), a place-details payload, or a Maps place page. */
import type { MapsPlace, VerticalPage, VerticalRequest } from '../../engine.types.ts'
import { MAPS_PAGE_SIZE } from './google-maps.request.ts'
import { parseMapsJson } from './google-maps-json.ts'
import { appStateOf, placePayloadOf } from './google-maps-page.parse.ts'
import { placeFromRecord, placeRecordsOf } from './google-maps-place.parse.ts'

/**
 * The places of one Maps page. Positions continue across pages: page 2 starts at 21 (Maps pages
 * hold 20 places). An unfamiliar layout gives what a bounded scan finds, as `partial`; a body that
 * is not Maps data gives no results.
 */
export function parseGoogleMaps(body: string, req?: Pick<VerticalRequest, 'page'>): VerticalPage<MapsPlace> {
  const data = mapsDataOf(body)
  if (data === undefined) return { results: [], parse_quality: 'empty' }
  const { records, known } = placeRecordsOf(data)
  const offset = ((req?.page ?? 1) - 1) * MAPS_PAGE_SIZE
  const results: MapsPlace[] = []
  for (const rec of records) {
    const place = placeFromRecord(rec)
    if (place) results.push({ position: offset + results.length + 1, ...place })
  }
  if (!results.length) return { results, parse_quality: 'empty' }
  return { results, parse_quality: known && results.length === records.length ? 'ok' : 'partial' }
}

/** Maps JSON (any of its wrappings), or the place payload inside a Maps web page. */
export function mapsDataOf(body: string): unknown {
  const data = parseMapsJson(body)
  if (data !== undefined) return data
  const state = appStateOf(body)
  return state ? placePayloadOf(state) : undefined
}
