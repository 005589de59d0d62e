/**
 * Parses Google suggest answers. The request asks for `client=firefox` (`["q",["s1",…],…]`); the
 * other well-known shapes are read too, so a client change or a different answer is not a
 * silent outage: the `)]}'` prefix, JavaScript-wrapped arrays (`window.google.ac.h([…])`),
 * `client=chrome` (navigational entries dropped), `gws-wiz` (`[[["<b>s1</b>",0,[…]],…],…]`, HTML
 * suggestions) and the toolbar XML (`<suggestion data="…"/>`).
 */
import { DomUtils, parseDocument } from 'htmlparser2'
import type { AutocompleteSuggestion, VerticalPage } from '../../engine.types.ts'
import { suggestionsPage } from '../../parse/suggestions.ts'
import { normText } from '../../parse/text.ts'
import { htmlText } from '../google-dom.util.ts'

// Google's anti-JSON-hijacking prefix, on its own line or glued to the JSON.
const XSSI_PREFIX = /^\s*\)\]\}'\s*,?/

/** The suggestions of one answer, in Google's order, without duplicates. */
export function parseGoogleAutocomplete(body: string): VerticalPage<AutocompleteSuggestion> {
  const values = suggestionsOf(body.replace(XSSI_PREFIX, '').trim())
  // A known shape with an empty list: Google has no suggestion for this prefix.
  return suggestionsPage(values ?? [], normText, values !== undefined)
}

/** The suggestions of a known answer shape; undefined for a body of no known shape. */
function suggestionsOf(body: string): string[] | undefined {
  if (!body) return undefined
  if (body.startsWith('<')) return fromToolbarXml(body)
  const data = parseJsonArray(body)
  if (!data) return undefined
  // firefox / chrome: [query, [suggestions], …]
  if (Array.isArray(data[1]) && data[1].every((s) => typeof s === 'string')) return withoutNavigation(data[1] as string[], data)
  // gws-wiz / psy-ab: [[[html, type, subtypes, …], …], {…}]
  if (Array.isArray(data[0])) {
    return data[0].map((entry) => (Array.isArray(entry) && typeof entry[0] === 'string' ? htmlText(entry[0]) : '')).filter(Boolean)
  }
  return undefined
}

/** The body as a JSON array, or the array inside a JavaScript call wrapping it. */
function parseJsonArray(body: string): unknown[] | undefined {
  const attempt = (s: string): unknown => {
    try {
      return JSON.parse(s)
    } catch {
      return undefined
    }
  }
  let data = attempt(body)
  if (!Array.isArray(data)) {
    const start = body.indexOf('[')
    const end = body.lastIndexOf(']')
    data = start >= 0 && end > start ? attempt(body.slice(start, end + 1)) : undefined
  }
  return Array.isArray(data) ? data : undefined
}

/** `client=chrome` marks URL suggestions NAVIGATION in its metadata object; they are not queries. */
function withoutNavigation(values: string[], data: unknown[]): string[] {
  const meta = data.find((x): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x) && 'google:suggesttype' in x)
  const types = meta?.['google:suggesttype']
  if (!Array.isArray(types)) return values
  return values.filter((_, i) => types[i] !== 'NAVIGATION')
}

function fromToolbarXml(body: string): string[] | undefined {
  const doc = parseDocument(body, { xmlMode: true })
  // `<toplevel>` is the toolbar answer; any other markup (an HTML block page) is no known shape.
  if (!DomUtils.findOne((el) => el.name === 'toplevel', doc.children)) return undefined
  return DomUtils.findAll((el) => el.name === 'suggestion', doc.children).map((el) => el.attribs.data ?? '')
}
