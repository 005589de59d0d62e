import type { VideoResult } from '../../engine.types.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectGoogleBlock } from '../google-block.detect.ts'
import { parseGoogleVideos } from './google-videos.parse.ts'
import { buildGoogleVideosRequest } from './google-videos.request.ts'

/** Google Videos: one basic-layout result page per request. */
export const googleVideos: EngineVertical<VideoResult> = {
  async run(req, fetch) {
    const { url, headers } = buildGoogleVideosRequest(req)
    const page = await fetch(url, headers, (r) => detectGoogleBlock(r))
    return parseGoogleVideos(page.body, req)
  },
}
