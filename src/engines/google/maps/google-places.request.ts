/**
 * /v1/places asks the same tbm=map endpoint as /v1/maps: it returns the businesses of the local
 * results with ids, contact data and (usually) coordinates in structured JSON, where the web
 * page's local pack is three HTML cards without coordinates. Places takes no viewport (`ll`);
 * location/uule steer the area.
 */
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { buildGoogleMapsRequest } from './google-maps.request.ts'

export function buildGooglePlacesRequest(req: VerticalRequest): GoogleRequest {
  const { ll: _viewport, ...rest } = req
  return buildGoogleMapsRequest(rest)
}
