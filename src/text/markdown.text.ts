/**
 * Building blocks for format=markdown: turning page text into Markdown that renders as the same text, links that
 * cannot break out of their brackets, and tables whose cells cannot split.
 *
 * Titles and snippets come from third-party pages, so they are escaped rather than trusted: left alone, a title
 * like "[Deal] 50% off *today*" or "<img src=x>" would turn into a link, emphasis or raw HTML in a renderer and
 * would confuse a model reading the raw text about where one result ends.
 */
/** A JSON object as parsed: what list-valued fields hold. */
type JsonObject = Record<string, unknown>

/** Any JSON value as one line of display text; missing, null, objects and non-finite numbers become ''. */
export function plain(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\s+/g, ' ').trim()
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (Array.isArray(value)) return value.map(plain).filter(Boolean).join(', ')
  return ''
}

/**
 * Escapes text placed inside a line (link text, bold text, after a list marker). Whitespace is collapsed, so the
 * text can never open a block of its own.
 */
export function inline(value: unknown): string {
  return (
    plain(value)
      .replace(/[\\`*[\]<~]/g, '\\$&')
      // An underscore between two letters or digits cannot start emphasis (snake_case, URLs), so it stays readable.
      .replace(/_/g, (underscore, at: number, text: string) => (isWordChar(text[at - 1]) && isWordChar(text[at + 1]) ? underscore : '\\_'))
      // Only entity-shaped ampersands would be decoded by a renderer ("&amp;"); "AT&T" needs nothing.
      .replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&')
  )
}

/**
 * Escapes text that starts a line, where "# ", ">", "- ", "+ ", "---" and "1. " would begin a heading, quote, list
 * or rule. Only those shapes are touched, so "-5 °C", "#hashtag" and "3.5 stars" print as they are.
 */
export function paragraph(value: unknown): string {
  return inline(value)
    .replace(/^(?:>|#(?=#*(?:\s|$))|[-+](?=\s|$)|-(?=-))/, '\\$&')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2')
}

/** Escapes text for a GFM table cell, where an unescaped pipe would start a new column. */
export function cell(markdown: string): string {
  return markdown.replace(/\|/g, '\\|')
}

/**
 * An http(s) URL made safe for a `(destination)`, or undefined. Other schemes (javascript:, data:) are refused
 * because the text is meant to be rendered. Characters that would end the destination are percent-encoded, which
 * leaves the URL pointing at the same page.
 */
export function safeUrl(value: unknown): string | undefined {
  const url = typeof value === 'string' ? value.trim() : ''
  if (!/^https?:\/\/[^\s/]/i.test(url)) return undefined
  if (/\p{Cc}/u.test(url)) return undefined // a newline or tab inside would end the line the link sits on
  return url.replace(/[ ()<>|\\]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
}

/** `[text](url)`, or just the escaped text when the URL is missing or unsafe. */
export function link(text: unknown, url: unknown): string {
  const label = inline(text) || inline(domainOf(url)) || 'link'
  const href = safeUrl(url)
  return href ? `[${label}](${href})` : label
}

/** `![alt](url)`, or '' when there is no usable image URL. */
export function image(alt: unknown, url: unknown): string {
  const href = safeUrl(url)
  return href ? `![${inline(alt) || 'image'}](${href})` : ''
}

/** An identifier in a code span, fenced with more backticks than it contains. */
export function code(value: unknown): string {
  const text = plain(value)
  if (!text) return ''
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(longest + 1)
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`
}

/** The host of a URL without `www.`, for "— domain" labels when a result carries no domain of its own. */
export function domainOf(url: unknown): string {
  const href = safeUrl(url)
  if (!href) return ''
  try {
    return new URL(href).hostname.replace(/^www\./, '')
  } catch {
    return ''
  }
}

/** Joins the non-empty parts with a middle dot, the separator used on every metadata line. */
export function joinParts(parts: readonly string[], separator = ' · '): string {
  return parts.filter((part) => part !== '').join(separator)
}

/** 1234 -> "1,234"; '' for anything that is not a finite number. */
export function count(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toLocaleString('en-US') : ''
}

/** "★ 4.5 (1,234)" for lists of places and products; '' without a rating. */
export function ratingLabel(rating: unknown, ratingCount: unknown): string {
  if (typeof rating !== 'number' || !Number.isFinite(rating)) return ''
  const total = count(ratingCount)
  return `★ ${rating}${total ? ` (${total})` : ''}`
}

/** "★★★★☆" for a 0–5 rating, rounded to whole stars. */
export function stars(rating: unknown): string {
  if (typeof rating !== 'number' || !Number.isFinite(rating)) return ''
  const filled = Math.min(5, Math.max(0, Math.round(rating)))
  return '★'.repeat(filled) + '☆'.repeat(5 - filled)
}

/** The items of a list value that are objects; anything else (a malformed entry) is skipped rather than printed. */
export function items(value: unknown): JsonObject[] {
  if (!Array.isArray(value)) return []
  return value.filter((item): item is JsonObject => typeof item === 'object' && item !== null && !Array.isArray(item))
}

export function object(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined
}

/**
 * A numbered list item: the first line after `N. `, further paragraphs indented to the marker's width so they stay
 * inside the item, with blank lines between them (a single newline would run them into one line when rendered).
 */
export function numberedItem(number: number, first: string, rest: readonly string[]): string {
  const marker = `${number}. `
  const indent = ' '.repeat(marker.length)
  const body = rest.filter((part) => part !== '').map((part) => indent + part.replace(/\n/g, `\n${indent}`))
  return [marker + first, ...body].join('\n\n')
}

/** A `## Title` section, or '' when there is nothing to put under it. */
export function section(title: string, content: string): string {
  return content ? `## ${title}\n\n${content}` : ''
}

/** The item's own position when it has one (page 2 starts at 11), else its place in the list. */
export function position(item: JsonObject, index: number): number {
  const value = item.position
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : index + 1
}

export interface Column {
  header: string
  /** Cell Markdown; pipes are escaped by `table`. */
  value: (item: JsonObject, index: number) => string
}

/** A GFM table; a column empty on every row is left out so sparse data does not print a wall of blanks. */
export function table(columns: readonly Column[], rows: readonly JsonObject[]): string {
  const cells = rows.map((row, index) => columns.map((column) => cell(column.value(row, index))))
  const used = columns.map((_, at) => cells.some((row) => row[at] !== ''))
  const pick = <T>(values: readonly T[]) => values.filter((_, at) => used[at])
  const line = (values: readonly string[]) => `| ${values.join(' | ')} |`
  return [line(pick(columns.map((column) => column.header))), line(pick(columns.map(() => '---'))), ...cells.map((row) => line(pick(row)))].join('\n')
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}]/u.test(char)
}
