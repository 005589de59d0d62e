/**
 * DuckDuckGo autocomplete: `GET https://duckduckgo.com/ac/?q=…&kl=…`, answering
 * `[{"phrase":"…"},…]`. With `type=list` the same endpoint answers the OpenSearch shape
 * `["q",["s1",…]]` (what browsers ask for); both are read.
 */

import type { AutocompleteSuggestion, VerticalPage, VerticalRequest } from '../engine.types.ts'
import { oneFetchVertical } from '../fetch-route.ts'
import { jsonSuggestionsPage } from '../parse/suggestions.ts'
import { detectDuckDuckGoAutocompleteBlock } from './duckduckgo.block.ts'
import { acceptLanguage, DDG_USER_AGENT, regionOf } from './duckduckgo.request.ts'

const ENDPOINT = 'https://duckduckgo.com/ac/'

export function buildDuckDuckGoAutocompleteRequest(req: VerticalRequest): { url: string; headers: Record<string, string> } {
  const language = req.language ?? 'en'
  const params = new URLSearchParams({ q: req.q ?? '', kl: regionOf(req.country ?? 'us', language) })
  return {
    url: `${ENDPOINT}?${params}`,
    headers: {
      'User-Agent': DDG_USER_AGENT,
      Accept: 'application/json, text/javascript, */*; q=0.01',
      'Accept-Language': acceptLanguage(language),
      Referer: 'https://duckduckgo.com/',
      'Sec-Fetch-Dest': 'empty',
      'Sec-Fetch-Mode': 'cors',
      'Sec-Fetch-Site': 'same-origin',
    },
  }
}

/** The suggestions in DuckDuckGo's order, without duplicates; a body that is not JSON has none. */
export function parseDuckDuckGoAutocomplete(body: string): VerticalPage<AutocompleteSuggestion> {
  return jsonSuggestionsPage(body, phrasesOf, (raw) => raw.replace(/\s+/g, ' ').trim())
}

/** `[{phrase}]` or `["q",[…]]`; undefined for any other shape. */
function phrasesOf(data: unknown): string[] | undefined {
  if (!Array.isArray(data)) return undefined
  if (data.length === 2 && typeof data[0] === 'string' && Array.isArray(data[1])) return data[1].filter((s): s is string => typeof s === 'string')
  if (data.every((e) => !!e && typeof e === 'object' && !Array.isArray(e))) {
    return data.map((e) => (e as { phrase?: unknown }).phrase).filter((s): s is string => typeof s === 'string')
  }
  return undefined
}

export const duckDuckGoAutocomplete = oneFetchVertical<AutocompleteSuggestion>(buildDuckDuckGoAutocompleteRequest, detectDuckDuckGoAutocompleteBlock, (body) =>
  parseDuckDuckGoAutocomplete(body),
)
