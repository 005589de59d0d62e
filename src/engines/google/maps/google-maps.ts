/** /v1/maps on Google: one tbm=map search request, parsed from positional JSON. */

import type { MapsPlace } from '../../engine.types.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectMapsJsonBlock } from './google-maps.block.ts'
import { parseGoogleMaps } from './google-maps.parse.ts'
import { buildGoogleMapsRequest } from './google-maps.request.ts'

export const googleMaps: EngineVertical<MapsPlace> = {
  async run(req, fetch) {
    const { url, headers } = buildGoogleMapsRequest(req)
    const res = await fetch(url, headers, detectMapsJsonBlock)
    return parseGoogleMaps(res.body, req)
  },
}
