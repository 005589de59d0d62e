/** The /v1/patents vertical on Google Patents (patents.google.com JSON search endpoint). */

import type { PatentResult } from '../../engine.types.ts'
import { oneFetchVertical } from '../../fetch-route.ts'
import { detectPatentsBlock } from './google-patents.block.ts'
import { parseGooglePatents } from './google-patents.parse.ts'
import { buildGooglePatentsRequest } from './google-patents.request.ts'

export const googlePatents = oneFetchVertical<PatentResult>(buildGooglePatentsRequest, detectPatentsBlock, parseGooglePatents, { cutToNum: true })
