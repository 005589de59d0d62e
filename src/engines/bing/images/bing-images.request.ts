/** Builds the Bing Images request: the grid fragment https://www.bing.com/images/async. */
import type { VerticalRequest } from '../../engine.types.ts'
import type { BingRequest } from '../bing.request.ts'
import { adultParam, bingHeaders, localeParams, queryString, verticalBasics } from '../bing.util.ts'

export const BING_IMAGES_URL = 'https://www.bing.com/images/async'

// Bing's "Date" filter on images is an age in minutes (filterui:age-lt<minutes>).
const AGE_MINUTES: Record<NonNullable<VerticalRequest['time']>, number> = {
  hour: 60,
  day: 1_440,
  week: 10_080,
  month: 43_200,
  year: 525_600,
}

/** The images URL and headers: `first` is 1-based, `count` asks for the whole page at once. */
export function buildBingImagesRequest(req: VerticalRequest): BingRequest {
  const { num, offset, language, country } = verticalBasics(req)
  const params: [string, string][] = [
    ['q', req.q ?? ''],
    ['first', String(offset + 1)],
    ['count', String(num)],
    ['async', '1'],
    ...localeParams(language, country),
  ]
  if (req.time) params.push(['qft', `+filterui:age-lt${AGE_MINUTES[req.time]}`])
  params.push(adultParam(req.safe))
  return { url: `${BING_IMAGES_URL}?${queryString(params)}`, headers: bingHeaders(language, country) }
}
