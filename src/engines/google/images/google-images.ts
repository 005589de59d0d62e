import type { ImageResult, VerticalRequest } from '../../engine.types.ts'
import { qualityOf } from '../../parse/quality.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectGoogleBlock } from '../google-block.detect.ts'
import { pageOf, pageOffset } from '../google-vertical.util.ts'
import { parseImageGrid } from './google-images.parse.ts'
import { buildGoogleImagesRequest } from './google-images.request.ts'

// The basic grid holds 20 images, so num=100 takes five pages; more would only repeat a short list.
const MAX_FETCHES = 5

/**
 * Google Images through the basic grid. When one grid page holds fewer images than `num`, the
 * following grid pages are fetched until `num` is reached or Google has no further page.
 */
export const googleImages: EngineVertical<ImageResult> = {
  async run(req: VerticalRequest, fetch) {
    const num = req.num ?? 10
    const offset = pageOffset(req)
    const seen = new Set<string>()
    const collected: ImageResult[] = []
    let failed = 0
    let start = offset
    for (let i = 0; i < MAX_FETCHES && collected.length < num; i++) {
      const { url, headers } = buildGoogleImagesRequest(req, start)
      const page = await fetch(url, headers, (r) => detectGoogleBlock(r))
      const grid = parseImageGrid(page.body)
      failed += grid.failed
      let added = 0
      for (const r of grid.results) {
        const key = `${r.thumbnail_url}|${r.link}`
        if (seen.has(key)) continue
        seen.add(key)
        collected.push(r)
        added++
      }
      if (!added || grid.nextStart === undefined || grid.nextStart <= start) break
      start = grid.nextStart
    }
    const results = pageOf(collected, req, (r) => r.link, offset)
    return { results, parse_quality: qualityOf(results.length, failed) }
  },
}
