/** Google Lens: the image URL handed to lens.google.com/uploadbyurl, the results page it leads to parsed. */

import type { LensResult } from '../../engine.types.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectGoogleLensBlock } from './google-lens.block.ts'
import { parseGoogleLens } from './google-lens.parse.ts'
import { buildGoogleLensRequest } from './google-lens.request.ts'

export const googleLens: EngineVertical<LensResult> = {
  async run(req, fetch) {
    const { url, headers } = buildGoogleLensRequest(req)
    const page = await fetch(url, headers, (r) => detectGoogleLensBlock(r))
    return parseGoogleLens(page.body)
  },
}
