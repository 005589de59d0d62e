import type { extractTextItems } from 'unpdf'
import { ApiError } from '../errors.ts'
import { isBlankBody } from '../net/body-decode.ts'
import { toIsoDate } from './metadata.extract.ts'
import type { PageMetadata } from './reading.types.ts'

export interface PdfRead {
  title: string | null
  publishedAt: string | null
  metadata: PageMetadata
  markdown: string
  text: string
}

interface Line {
  text: string
  y: number
  size: number
}

type Item = Awaited<ReturnType<typeof extractTextItems>>['items'][number][number]

/**
 * Groups pdf.js text items into lines by baseline, top to bottom, left to right. The content
 * stream's own order is not reading order in many generators, so geometry decides; a gap wider
 * than a fifth of the font size between two items is a space.
 */
function pageLines(items: Item[]): Line[] {
  const rows: { y: number; size: number; items: Item[] }[] = []
  for (const it of items) {
    if (!it.str) continue
    const size = it.fontSize || it.height || 10
    const row = rows.find((r) => Math.abs(r.y - it.y) < Math.min(r.size, size) * 0.5)
    if (row) {
      row.items.push(it)
      row.size = Math.max(row.size, size)
    } else rows.push({ y: it.y, size, items: [it] })
  }
  rows.sort((a, b) => b.y - a.y)
  const lines: Line[] = []
  for (const row of rows) {
    row.items.sort((a, b) => a.x - b.x)
    let text = ''
    let end = Number.NEGATIVE_INFINITY
    for (const it of row.items) {
      const gap = it.x - end
      if (text && !/\s$/.test(text) && !/^\s/.test(it.str) && gap > (it.fontSize || row.size) * 0.2) text += ' '
      text += it.str
      end = it.x + it.width
    }
    const clean = text.replace(/\s+/g, ' ').trim()
    if (clean) lines.push({ text: clean, y: row.y, size: row.size })
  }
  return lines
}

/**
 * Rebuilds paragraphs from line geometry: a vertical gap clearly larger than the line height
 * starts a new paragraph, and a line set well above the body font size becomes a heading.
 */
function layout(pages: Line[][], headings: boolean): string {
  const sizes = pages
    .flat()
    .map((l) => l.size)
    .filter((s) => s > 0)
    .sort((a, b) => a - b)
  const body = sizes[Math.floor(sizes.length / 2)] ?? 10
  const out: string[] = []
  for (const lines of pages) {
    let para: string[] = []
    const flush = () => {
      if (para.length) out.push(para.join('\n'))
      para = []
    }
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!
      const prev = lines[i - 1]
      const gap = prev ? Math.abs(prev.y - line.y) : 0
      const isHeading = headings && line.size >= body * 1.3 && line.text.length < 120
      if (isHeading) {
        flush()
        out.push(`## ${line.text}`)
        continue
      }
      if (prev && gap > Math.max(line.size, prev.size) * 1.6) flush()
      para.push(line.text)
    }
    flush()
  }
  return out.join('\n\n')
}

/** unpdf (and pdf.js through it) loads at the first PDF read: an idle server does without it. */
const unpdf = () => import('unpdf')

/** PDF -> Markdown and text through unpdf (pdf.js), with the document's own title and dates. */
export async function readPdf(body: Buffer): Promise<PdfRead> {
  // Nothing to read is an empty page (the reader reports it as such), as for an empty HTML page.
  if (isBlankBody(body)) return { title: null, publishedAt: null, metadata: {}, markdown: '', text: '' }
  const { extractTextItems, getDocumentProxy, getMeta } = await unpdf()
  // A header after a banner is fine as it is: pdf.js finds it in the first 1024 bytes itself.
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>
  try {
    pdf = await getDocumentProxy(new Uint8Array(body))
  } catch (e) {
    const message = (e as Error).name === 'PasswordException' ? 'PDF is password-protected' : 'PDF could not be parsed'
    throw new ApiError('upstream_error', message, { cause: e })
  }
  try {
    const [{ info }, { items }] = await Promise.all([getMeta(pdf), extractTextItems(pdf)])
    const meta = (info ?? {}) as Record<string, unknown>
    const s = (k: string) => (typeof meta[k] === 'string' && (meta[k] as string).trim() ? (meta[k] as string).trim() : undefined)
    const pages = items.map(pageLines)
    const metadata: PageMetadata = { pages: pdf.numPages }
    const author = s('Author')
    if (author) metadata.author = author
    const subject = s('Subject')
    if (subject) metadata.description = subject
    const keywords = s('Keywords')
    if (keywords) metadata.keywords = keywords
    const modified = toIsoDate(pdfDate(s('ModDate')))
    if (modified) metadata.modified_at = modified
    const firstLine = pages.find((p) => p.length > 0)?.[0]?.text
    return {
      title: s('Title') ?? (firstLine && firstLine.length < 200 ? firstLine : null),
      publishedAt: toIsoDate(pdfDate(s('CreationDate'))),
      metadata,
      markdown: layout(pages, true),
      text: layout(pages, false),
    }
  } finally {
    void pdf.destroy()
  }
}

/** `D:20190823143011+02'00'` -> `2019-08-23T14:30:11+02:00`. */
function pdfDate(v: string | undefined): string | undefined {
  const m = v && /^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(v)
  if (!m) return undefined
  const [, y, mo = '01', d = '01', h = '00', mi = '00', se = '00', tz] = m
  const zone = !tz || /z/i.test(tz) ? 'Z' : `${tz.slice(0, 3)}:${tz.replace(/'/g, '').slice(3, 5) || '00'}`
  return `${y}-${mo}-${d}T${h}:${mi}:${se}${zone}`
}
