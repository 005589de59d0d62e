import { nestUnder } from '../text/markdown-outline.ts'

/** Writing results: stdout carries the answer only; notes, warnings and progress go to stderr. */

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2))
}

export function warn(text: string): void {
  process.stderr.write(`trawl: ${text}\n`)
}

/** Aligned columns; the last column is never padded. */
export function table(header: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (c == null || c === '' ? '-' : String(c))))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

/** `label  value` lines, labels padded to one width; null and undefined values are skipped. */
export function fields(pairs: [string, unknown][]): string {
  const shown = pairs.filter(([, v]) => v !== undefined)
  const width = Math.max(...shown.map(([k]) => k.length)) + 2
  return shown.map(([k, v]) => `${k.padEnd(width)}${v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join('\n')
}

export const credits = (n: number | null | undefined) => (n == null ? 'none' : `${n} credit${n === 1 ? '' : 's'}`)

interface PageLike {
  url: string
  title?: string | null
  markdown?: string
  text?: string
  html?: string
  highlights?: { text: string }[]
}

/** The readable content of a read page, whatever format was asked for. */
export function pageContent(page: PageLike): string {
  return page.markdown ?? page.text ?? page.html ?? ''
}

/**
 * Several pages as one Markdown document: a heading and the URL per page, then its content, whose
 * own headings are moved below that heading (its title heading, which the section heading repeats,
 * dropped).
 */
export function pagesAsMarkdown(pages: PageLike[]): string {
  return pages
    .map((page) => {
      const highlights = page.highlights?.length ? `\n\nHighlights:\n${page.highlights.map((h) => `> ${h.text.replace(/\n/g, ' ')}`).join('\n>\n')}` : ''
      const content = page.markdown !== undefined ? nestUnder(page.markdown.trim(), 2, page.title) : pageContent(page).trim()
      return `## ${page.title || page.url}\n\n<${page.url}>${highlights}\n\n${content.trim()}\n`
    })
    .join('\n')
}

/** One page as printed alone: its Markdown (which opens with `# Title`), or its title over its text. */
export function pageAlone(page: PageLike): string {
  if (page.markdown === undefined && page.text !== undefined && page.title) return `${page.title}\n\n${page.text}`
  return pageContent(page)
}
