/** Small readers shared by the provider parsers: untyped JSON access, text clean-up, result URLs and dates. */
import * as cheerio from 'cheerio'

export type Json = Record<string, unknown>

export const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined)
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** Whitespace runs (newlines, nbsp) as one space, trimmed. A zero-width space counts as whitespace. */
export const collapse = (s: string): string => s.replace(/[\s\u00a0\u200b]+/g, ' ').trim()

/** Zero-width spaces and joiners, direction marks and embeddings, the word joiner and the BOM. */
const INVISIBLE_MARKS = /[\u200b-\u200f\u202a-\u202e\u2060\ufeff]/g

/**
 * Text with the characters `drop` (a global RegExp) matches deleted, by default the invisible marks
 * engines leave around breadcrumbs and highlights; whitespace runs as one space, trimmed. Unlike
 * `collapse`, a zero-width space is deleted, not turned into a space.
 */
export function normText(s: string | null | undefined, drop: RegExp = INVISIBLE_MARKS): string {
  return (s ?? '').replace(drop, '').replace(/\s+/g, ' ').trim()
}

/** Plain text of a string that may hold markup (<strong>) and entities (&#x27;), collapsed. */
export function plain(v: unknown): string {
  const s = str(v)
  if (!s) return ''
  if (!/[<&]/.test(s)) return collapse(s)
  return collapse(cheerio.load(s, null, false).root().text())
}

/**
 * An absolute http(s) URL (`v` resolved against `base` when given), or undefined. `v` is not
 * trimmed: the URL parser drops only ASCII spaces and controls at the ends, so callers reading
 * text that may carry other whitespace pass `v?.trim()`.
 */
export function httpUrl(v: string | null | undefined, base?: string): string | undefined {
  if (!v) return undefined
  try {
    const u = new URL(v, base)
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined
  } catch {
    return undefined
  }
}

/** The hostname, lower case, without `www.`; '' for a string that is not a URL. */
export function domainOf(link: string): string {
  try {
    return new URL(link).hostname.toLowerCase().replace(/^www\./, '')
  } catch {
    return ''
  }
}

/** True when `body` is an RSS document (an optional BOM, XML declaration and comments, then `<rss>`). */
export function isRssFeed(body: string): boolean {
  return /^\ufeff?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<rss[\s>]/i.test(body.slice(0, 4096))
}

// Engines write a result's date before its description: "3 weeks ago - …", "March 3, 2022 - …"
// (Brave), "14 Oct 2023 ... …" (Startpage, as Google does).
const DATE_PREFIX =
  /^((?:\d+ (?:second|minute|hour|day|week|month|year)s? ago)|(?:[A-Z][a-z]{2,8}\.? \d{1,2}, \d{4})|(?:\d{1,2} [A-Z][a-z]{2,8}\.? \d{4})|(?:\d{4}-\d{2}-\d{2}))\s+(?:-|—|·|\.\.\.|…)\s*/

/** Splits a leading "date - " off a description. */
export function splitDate(text: string): { date?: string; snippet: string } {
  const m = DATE_PREFIX.exec(text)
  if (!m?.[1]) return { snippet: text }
  return { date: m[1], snippet: text.slice(m[0].length) }
}
