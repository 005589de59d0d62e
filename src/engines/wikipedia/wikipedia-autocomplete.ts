/**
 * Wikipedia autocomplete from `action=opensearch`: `[query, [titles], [descriptions], [urls]]`,
 * the article titles matching the typed prefix.
 */

import type { AutocompleteSuggestion, VerticalPage } from '../engine.types.ts'
import { oneFetchVertical } from '../fetch-route.ts'
import { jsonSuggestionsPage } from '../parse/suggestions.ts'
import { detectWikipediaBlock } from './wikipedia.block.ts'
import { buildWikipediaAutocompleteRequest } from './wikipedia.request.ts'
import { clean } from './wikipedia.util.ts'

export function parseWikipediaAutocomplete(body: string): VerticalPage<AutocompleteSuggestion> {
  return jsonSuggestionsPage(body, titlesOf, clean)
}

/** The titles of `[query, [titles], …]`; undefined for any other shape. */
function titlesOf(data: unknown): string[] | undefined {
  if (!Array.isArray(data) || !Array.isArray(data[1])) return undefined
  return data[1].filter((s): s is string => typeof s === 'string')
}

export const wikipediaAutocomplete = oneFetchVertical<AutocompleteSuggestion>(buildWikipediaAutocompleteRequest, detectWikipediaBlock, (body) =>
  parseWikipediaAutocomplete(body),
)
