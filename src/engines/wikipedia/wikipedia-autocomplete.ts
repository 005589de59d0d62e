/**
 * Wikipedia autocomplete from `action=opensearch`: `[query, [titles], [descriptions], [urls]]`,
 * the article titles matching the typed prefix.
 */

import type { AutocompleteSuggestion, VerticalPage } from '../engine.types.ts'
import { confirmEmpty } from '../parse/quality.ts'
import type { EngineVertical } from '../provider.types.ts'
import { detectWikipediaBlock } from './wikipedia.block.ts'
import { buildWikipediaAutocompleteRequest } from './wikipedia.request.ts'
import { clean } from './wikipedia.util.ts'

export function parseWikipediaAutocomplete(body: string): VerticalPage<AutocompleteSuggestion> {
  let data: unknown
  try {
    data = JSON.parse(body)
  } catch {
    return { results: [], parse_quality: body.trim() ? 'partial' : 'empty' }
  }
  if (!Array.isArray(data) || !Array.isArray(data[1])) return { results: [], parse_quality: 'partial' }
  const seen = new Set<string>()
  const results: AutocompleteSuggestion[] = []
  for (const raw of data[1]) {
    const value = typeof raw === 'string' ? clean(raw) : ''
    if (!value || seen.has(value)) continue
    seen.add(value)
    results.push({ value })
  }
  return confirmEmpty({ results, parse_quality: results.length ? 'ok' : 'empty' })
}

export const wikipediaAutocomplete: EngineVertical<AutocompleteSuggestion> = {
  async run(req, fetch) {
    const { url, headers } = buildWikipediaAutocompleteRequest(req)
    const { body } = await fetch(url, headers, detectWikipediaBlock)
    return parseWikipediaAutocomplete(body)
  },
}
