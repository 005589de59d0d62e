/** Readers of autocomplete answers: suggestion lists in the engine's order, without repeats. */
import type { AutocompleteSuggestion, VerticalPage } from '../engine.types.ts'
import { confirmEmpty } from './quality.ts'

/**
 * The suggestions `values`, each cleaned by `clean`, the empty and repeated ones dropped. An empty
 * list is the engine's word that it has none when the answer was `recognised` (confirmEmpty).
 */
export function suggestionsPage(values: readonly string[], clean: (raw: string) => string, recognised = true): VerticalPage<AutocompleteSuggestion> {
  const seen = new Set<string>()
  const results: AutocompleteSuggestion[] = []
  for (const raw of values) {
    const value = clean(raw)
    if (!value || seen.has(value)) continue
    seen.add(value)
    results.push({ value })
  }
  return confirmEmpty({ results, parse_quality: results.length ? 'ok' : 'empty' }, recognised)
}

/**
 * A JSON answer's suggestions, the list found by `listOf` (undefined when the JSON is not of the
 * engine's shape: a partial answer). A body that is not JSON has none.
 */
export function jsonSuggestionsPage(
  body: string,
  listOf: (data: unknown) => string[] | undefined,
  clean: (raw: string) => string,
): VerticalPage<AutocompleteSuggestion> {
  let data: unknown
  try {
    data = JSON.parse(body)
  } catch {
    return { results: [], parse_quality: body.trim() ? 'partial' : 'empty' }
  }
  const values = listOf(data)
  if (!values) return { results: [], parse_quality: 'partial' }
  return suggestionsPage(values, clean)
}
