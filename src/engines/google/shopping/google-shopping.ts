/** Google Shopping: one `tbm=shop` page fetched through the upstream client and parsed from HTML. */

import type { ShoppingResult } from '../../engine.types.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectGoogleShoppingBlock } from './google-shopping.block.ts'
import { parseGoogleShopping } from './google-shopping.parse.ts'
import { buildGoogleShoppingRequest } from './google-shopping.request.ts'

export const googleShopping: EngineVertical<ShoppingResult> = {
  async run(req, fetch) {
    const { url, headers } = buildGoogleShoppingRequest(req)
    const page = await fetch(url, headers, (r) => detectGoogleShoppingBlock(r))
    return parseGoogleShopping(page.body, req)
  },
}
