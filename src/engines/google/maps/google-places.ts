/** /v1/places on Google: the Maps search endpoint without a viewport, projected to the places fields. */
import type { EngineVertical } from '../../provider.types.ts'
import { detectMapsJsonBlock } from './google-maps.block.ts'
import { type PlacesResult, parseGooglePlaces } from './google-places.parse.ts'
import { buildGooglePlacesRequest } from './google-places.request.ts'

export const googlePlaces: EngineVertical<PlacesResult> = {
  async run(req, fetch) {
    const { url, headers } = buildGooglePlacesRequest(req)
    const res = await fetch(url, headers, detectMapsJsonBlock)
    return parseGooglePlaces(res.body, req)
  },
}
