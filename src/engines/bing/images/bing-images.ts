import type { ImageResult } from '../../engine.types.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectBingBlock } from '../bing.block.ts'
import { parseBingImages } from './bing-images.parse.ts'
import { buildBingImagesRequest } from './bing-images.request.ts'

/** Bing Images: one grid fetch of `num` tiles, cut to `num` (Bing may send a few more). */
export const bingImages: EngineVertical<ImageResult> = {
  async run(req, fetch) {
    const { url, headers } = buildBingImagesRequest(req)
    const page = await fetch(url, headers, (r) => detectBingBlock(r))
    const parsed = parseBingImages(page.body)
    return { ...parsed, results: parsed.results.slice(0, req.num ?? 10) }
  },
}
