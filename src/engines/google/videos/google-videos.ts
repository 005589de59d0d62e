import type { VideoResult } from '../../engine.types.ts'
import { oneFetchVertical } from '../../fetch-route.ts'
import { detectGoogleBlock } from '../google-block.detect.ts'
import { parseGoogleVideos } from './google-videos.parse.ts'
import { buildGoogleVideosRequest } from './google-videos.request.ts'

/** Google Videos: one basic-layout result page per request. */
export const googleVideos = oneFetchVertical<VideoResult>(buildGoogleVideosRequest, detectGoogleBlock, parseGoogleVideos)
