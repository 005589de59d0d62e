/** Google Lens: the image URL handed to lens.google.com/uploadbyurl, the results page it leads to parsed. */

import type { LensResult } from '../../engine.types.ts'
import { oneFetchVertical } from '../../fetch-route.ts'
import { detectGoogleLensBlock } from './google-lens.block.ts'
import { parseGoogleLens } from './google-lens.parse.ts'
import { buildGoogleLensRequest } from './google-lens.request.ts'

export const googleLens = oneFetchVertical<LensResult>(buildGoogleLensRequest, detectGoogleLensBlock, (body) => parseGoogleLens(body))
