/**
 * Headings of a page's Markdown, as a document of its own and inside a larger one.
 *
 * The reader returns a page's headline as `title` and takes the heading that repeats it out of the
 * content (content.title.ts), so the Markdown alone had no title: `titled` puts it back as `# Title`
 * unless the content already opens with that heading. Where several pages are joined under a
 * heading each (a crawl's or an extract's pages in `trawl`, search results read with
 * include_content), `nestUnder` drops the page's own title heading (the section heading shows it)
 * and moves its headings down, so that none is at or above the section's level.
 */

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/
const FENCE = /^ {0,3}(`{3,}|~{3,})/

const normalised = (s: string) =>
  s
    .toLowerCase()
    .replace(/\\(.)/g, '$1')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()

/** The title as heading text: what would read as emphasis, code, a link or a closing `#` escaped. */
const headingText = (title: string) =>
  title
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/([\\`*[\]<])/g, '\\$1')
    .replace(/ #+$/, (m) => m.replace(/#/g, '\\#'))

interface Heading {
  line: number
  level: number
  text: string
}

/** ATX headings outside fenced code blocks. */
function headingsOf(lines: readonly string[]): Heading[] {
  const found: Heading[] = []
  let fence: string | null = null
  lines.forEach((line, i) => {
    const f = FENCE.exec(line)
    if (fence) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null
      return
    }
    if (f) {
      fence = f[1]!
      return
    }
    const h = ATX.exec(line)
    if (h) found.push({ line: i, level: h[1]!.length, text: h[2] ?? '' })
  })
  return found
}

/** `# Title` over `markdown`, unless it is empty or already opens with a level-1 heading saying the title. */
export function titled(markdown: string, title: string | null | undefined): string {
  const text = title ? headingText(title) : ''
  if (!text || !markdown.trim()) return markdown
  const lines = markdown.split('\n')
  const first = lines.findIndex((l) => l.trim() !== '')
  const opening = headingsOf(lines).find((h) => h.line === first)
  if (opening?.level === 1 && normalised(opening.text) === normalised(title!)) return markdown
  return `# ${text}\n\n${markdown}`
}

/**
 * A page's Markdown placed under a heading of level `level` that names it: a first heading that
 * repeats `title` is dropped, and every heading is moved down so that the highest one is at
 * `level + 1` (at most level 6).
 */
export function nestUnder(markdown: string, level: number, title?: string | null): string {
  let lines = markdown.split('\n')
  const first = lines.findIndex((l) => l.trim() !== '')
  const opening = headingsOf(lines)[0]
  if (title && opening && opening.line === first && normalised(opening.text) === normalised(title)) {
    let next = first + 1
    while (next < lines.length && lines[next]!.trim() === '') next++
    lines = lines.slice(next)
  }
  const headings = headingsOf(lines)
  if (headings.length === 0) return lines.join('\n')
  const shift = Math.max(0, level + 1 - Math.min(...headings.map((h) => h.level)))
  if (shift === 0) return lines.join('\n')
  for (const h of headings) {
    const line = lines[h.line]!
    const at = line.indexOf('#')
    lines[h.line] = `${line.slice(0, at)}${'#'.repeat(Math.min(6, h.level + shift))}${line.slice(at + h.level)}`
  }
  return lines.join('\n')
}
