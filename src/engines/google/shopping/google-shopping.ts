/** Google Shopping: one `tbm=shop` page fetched through the upstream client and parsed from HTML. */

import type { ShoppingResult } from '../../engine.types.ts'
import { oneFetchVertical } from '../../fetch-route.ts'
import { detectGoogleShoppingBlock } from './google-shopping.block.ts'
import { parseGoogleShopping } from './google-shopping.parse.ts'
import { buildGoogleShoppingRequest } from './google-shopping.request.ts'

export const googleShopping = oneFetchVertical<ShoppingResult>(buildGoogleShoppingRequest, detectGoogleShoppingBlock, parseGoogleShopping)
