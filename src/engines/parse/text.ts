/** Small readers shared by the provider parsers: untyped JSON access, text clean-up, result URLs and dates. */
import { loadCheerio } from './cheerio-load.ts'

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
  if (!s) return ''
  if (drop !== INVISIBLE_MARKS) return s.replace(drop, '').replace(/\s+/g, ' ').trim()
  // Result parsers normalise thousands of strings a page, most of them clean but for whitespace at
  // the ends: one scan, and then the string itself or a slice of it, where the
  // replace-replace-trim chain made three copies. Only other strings are rebuilt.
  let start = 0
  let end = s.length
  while (start < end && isDropped(s.charCodeAt(start))) start++
  while (end > start && isDropped(s.charCodeAt(end - 1))) end--
  if (!isNormal(s, start, end)) return renormalise(s)
  return start === 0 && end === s.length ? s : s.slice(start, end)
}

// What `\s` and `String.prototype.trim` treat as whitespace, and INVISIBLE_MARKS, by char code
// (U+FEFF is both: it is deleted, as the invisible-mark replace ran first).
const isSpaceCode = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  (c >= 0xa0 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000))
const isInvisibleCode = (c: number): boolean => c >= 0x200b && (c <= 0x200f || (c >= 0x202a && c <= 0x202e) || c === 0x2060 || c === 0xfeff)

const isDropped = (c: number): boolean => isSpaceCode(c) || isInvisibleCode(c)

/** True when `s` from `start` to `end` (which are not whitespace) has no invisible mark and only single plain spaces. */
function isNormal(s: string, start: number, end: number): boolean {
  let prevSpace = false
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i)
    if (c === 32) {
      if (prevSpace) return false
      prevSpace = true
    } else if (isDropped(c)) {
      return false
    } else prevSpace = false
  }
  return true
}

/** normText's result built from runs of kept characters, one space where whitespace separated two runs. */
function renormalise(s: string): string {
  let out = ''
  let runStart = -1 // start of the current run of kept characters
  let space = false // whitespace seen since the last run, after some text
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const invisible = isInvisibleCode(c)
    if (invisible || isSpaceCode(c)) {
      if (runStart >= 0) {
        out += s.slice(runStart, i)
        runStart = -1
      }
      if (!invisible && out !== '') space = true
    } else if (runStart < 0) {
      if (space) out += ' '
      space = false
      runStart = i
    }
  }
  return runStart >= 0 ? out + s.slice(runStart) : out
}

/** `s.trim().length`, without the copy. */
export function trimmedLength(s: string): number {
  let start = 0
  let end = s.length
  while (start < end && (isSpaceCode(s.charCodeAt(start)) || s.charCodeAt(start) === 0xfeff)) start++
  while (end > start && (isSpaceCode(s.charCodeAt(end - 1)) || s.charCodeAt(end - 1) === 0xfeff)) end--
  return end - start
}

/** Plain text of a string that may hold markup (<strong>) and entities (&#x27;), collapsed. */
export function plain(v: unknown): string {
  const s = str(v)
  if (!s) return ''
  if (!/[<&]/.test(s)) return collapse(s)
  return collapse(loadCheerio(s, null, false).root().text())
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
