import type { ImageResult } from '../../engine.types.ts'
import { oneFetchVertical } from '../../fetch-route.ts'
import { detectBingBlock } from '../bing.block.ts'
import { parseBingImages } from './bing-images.parse.ts'
import { buildBingImagesRequest } from './bing-images.request.ts'

/** Bing Images: one grid fetch of `num` tiles, cut to `num` (Bing may send a few more). */
export const bingImages = oneFetchVertical<ImageResult>(buildBingImagesRequest, detectBingBlock, (body) => parseBingImages(body), { cutToNum: true })
