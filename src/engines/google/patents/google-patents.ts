/** The /v1/patents vertical on Google Patents (patents.google.com JSON search endpoint). */

import type { PatentResult } from '../../engine.types.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectPatentsBlock } from './google-patents.block.ts'
import { parseGooglePatents } from './google-patents.parse.ts'
import { buildGooglePatentsRequest } from './google-patents.request.ts'

export const googlePatents: EngineVertical<PatentResult> = {
  async run(req, fetch) {
    const { url, headers } = buildGooglePatentsRequest(req)
    const { body } = await fetch(url, headers, (r) => detectPatentsBlock(r))
    const page = parseGooglePatents(body, req)
    // The caller asked (and pays) for num results; a longer answer is cut to that.
    return { ...page, results: page.results.slice(0, req.num ?? 10) }
  },
}
