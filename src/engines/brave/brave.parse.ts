/**
 * Parses a Brave Search web result page. The SvelteKit page (2024 on) carries the whole search
 * response in its inline `kit.start(app, element, { data: [...] })` call, which is read first;
 * the result markup (the only source on older, server-rendered pages) is the fallback.
 */
import type { ParsedSearchPage } from '../engine.types.ts'
import { readJsLiteralAfter } from '../parse/js-literal.ts'
import { arr, type Json, obj } from '../parse/text.ts'
import { parseBraveHtml } from './brave-html.parse.ts'
import { readBraveResponse } from './brave-json.parse.ts'

const KIT_START = /kit\.start\(\s*[\w$]+\s*,\s*[\w$]+\s*,\s*/

export function parseBraveSearch(html: string): ParsedSearchPage {
  const kit = braveKitData(html)
  if (kit) {
    const { page, markup } = readBraveResponse(kit.response)
    if (page.results.length > 0) return page
    if (markup === 0 && kit.noResults) return { ...page, saysNoResults: true }
  }
  const page = parseBraveHtml(html)
  // The data may still hold the side sections the markup parser does not read.
  if (kit && page.results.length > 0) {
    const extra = readBraveResponse(kit.response).page
    if (extra.people_also_ask) page.people_also_ask = extra.people_also_ask
    if (extra.related_searches) page.related_searches = extra.related_searches
    if (extra.knowledge_graph) page.knowledge_graph = extra.knowledge_graph
  }
  return page
}

/** The search response the page hands its app, and whether the page says it has no results. */
export function braveKitData(html: string): { response: Json; noResults: boolean } | undefined {
  const start = html.indexOf('kit.start(')
  if (start === -1) return undefined
  const args = obj(readJsLiteralAfter(html.slice(start), KIT_START))
  for (const node of arr(args?.data)) {
    const data = obj(obj(node)?.data)
    const response = obj(obj(data?.body)?.response)
    if (response) return { response, noResults: data?.noResults === true }
  }
  return undefined
}
