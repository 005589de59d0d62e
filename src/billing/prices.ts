import { toMc } from './money.ts'

/** Credit prices, in one place. Every debit in Trawl is computed here. */
export const PRICES = {
  page: 1, // search, news, images, videos, maps, places, shopping, scholar, patents, webpage, compatible endpoint
  depthBundle100: 7, // num=100 instead of 10 pages
  reviewsPer10: 1,
  autocomplete: 0.5,
  lens: 2,
  rank: 7,
  cacheHitFactor: 0.5,
  batchFactor: 0.5,
} as const

/** Search-style verticals: one credit per 10 results asked for; num=100 is the 7-credit bundle. */
export function searchPriceMc(num: number): number {
  if (num >= 100) return toMc(PRICES.depthBundle100)
  return toMc(PRICES.page * Math.ceil(num / 10))
}

/**
 * What a search that asked for `num` results and got `delivered` costs: the price of the depth
 * actually delivered (rounded up to whole pages of 10), never more than the price of `num`. An
 * engine that ignores num=100 and prints 10 results costs 1 credit, not 7.
 */
export function deliveredSearchPriceMc(num: number, delivered: number): number {
  if (delivered <= 0) return 0
  return Math.min(searchPriceMc(num), searchPriceMc(Math.ceil(delivered / 10) * 10))
}

export function cacheHitPriceMc(priceMc: number): number {
  return Math.round(priceMc * PRICES.cacheHitFactor)
}

/** A call to the operator's chat model (answers, schema extraction, research): TRAWL_LLM_CALL_CREDITS each. */
export function modelCallPriceMc(callCredits: number): number {
  return toMc(callCredits)
}
