/** Places are Maps places projected to the item fields of /v1/places (results.schema.ts). */
import type { MapsPlace, VerticalPage, VerticalRequest } from '../../engine.types.ts'
import { parseGoogleMaps } from './google-maps.parse.ts'

const PLACE_FIELDS = [
  'position',
  'title',
  'address',
  'latitude',
  'longitude',
  'rating',
  'rating_count',
  'type',
  'phone_number',
  'website',
  'place_id',
  'cid',
] as const satisfies readonly (keyof MapsPlace)[]

export type PlacesResult = Pick<MapsPlace, (typeof PLACE_FIELDS)[number]>

export function parseGooglePlaces(body: string, req?: Pick<VerticalRequest, 'page'>): VerticalPage<PlacesResult> {
  const page = parseGoogleMaps(body, req)
  return { ...page, results: page.results.map(toPlace) }
}

function toPlace(place: MapsPlace): PlacesResult {
  const out: Record<string, unknown> = {}
  for (const key of PLACE_FIELDS) if (place[key] !== undefined) out[key] = place[key]
  return out as PlacesResult
}
