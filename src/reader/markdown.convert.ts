import type { AnyNode, Element, ParentNode } from 'domhandler'
import { absoluteUrl, BLOCK_TAGS, isElement, isText, rawText, textOf } from './dom.utils.ts'
import { imageSource, isEmoji, isNonImage } from './image.source.ts'

/**
 * Our own DOM -> Markdown/text writer over htmlparser2 nodes. Hand-written because turndown on
 * linkedom was the slowest stage of the measured stack, escapes far more than GFM needs
 * (`snake\_case` costs tokens and reads badly to a model), and cannot emit plain text from the same
 * walk. It writes GFM: atx headings, fenced code with language, pipe tables, nested lists.
 */

export interface WriteOptions {
  baseUrl: string
  plain: boolean
  /** Collects every link and image the output mentions, in order. */
  links: { url: string; text: string }[]
  images: string[]
  /** Writes repeated blocks too: for rendering a gold text as it is, without the reader's cleanup. */
  keepRepeats?: boolean
}

const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'title',
  'meta',
  'link',
  'button',
  'input',
  'select',
  'textarea',
  'option',
  'svg',
  'iframe',
  'object',
  'embed',
  'canvas',
  'map',
  'dialog',
])

function escapeInline(text: string): string {
  // Only what would change meaning in GFM: emphasis stars, code ticks, link brackets, and
  // underscores at word edges (intraword `_` is literal in GFM).
  return text.replace(/([\\`*[\]])/g, '\\$1').replace(/(^|\W)_|_(?=\W|$)/g, (m) => m.replace('_', '\\_'))
}

function escapeLineStart(line: string): string {
  return line.replace(/^(\s*)([#>+-]|\d+[.)])(?=\s)/, '$1\\$2').replace(/^(\s*)(={3,}|-{3,})\s*$/, '$1\\$2')
}

/** A repeated block this long is a paragraph, not a caption or a sticky lead. */
const REPEATED_PARAGRAPH = 200

class Writer {
  /**
   * Text blocks already written: galleries and sticky headers repeat the same caption or lead in
   * their own wrappers. A real <p> is never dropped as a repeat: menus, recipes and lyrics repeat
   * whole lines on purpose. So is a paragraph-sized block repeated by a sibling of the block that
   * first held it: a template duplicates text in another wrapper and a gallery repeats a caption
   * slide after slide, but only an author repeats a whole paragraph in the next block.
   */
  private readonly seen = new Map<string, ParentNode | null>()
  constructor(private readonly o: WriteOptions) {}

  private fresh(block: string, paragraph: boolean, holder: ParentNode | null): boolean {
    if (block.length < 50 || paragraph || this.o.keepRepeats) return true
    if (!this.seen.has(block)) {
      this.seen.set(block, holder)
      return true
    }
    const first = this.seen.get(block)
    return block.length >= REPEATED_PARAGRAPH && !!holder?.parent && first !== holder && first?.parent === holder.parent
  }

  /** Renders a sequence of nodes as blocks separated by blank lines. */
  blocks(nodes: readonly AnyNode[], paragraph = false): string {
    const out: string[] = []
    let run: AnyNode[] = []
    const flush = () => {
      if (run.length === 0) return
      const para = this.inline(run).trim()
      if (para && this.fresh(para, paragraph, run[0]?.parent ?? null))
        out.push(
          this.o.plain
            ? para
            : para
                .split('\n')
                .map((l) => escapeLineStart(l.trim()))
                .join('\n'),
        )
      run = []
    }
    for (const node of nodes) {
      if (isElement(node) && SKIP.has(node.name)) continue
      if (isElement(node) && BLOCK_TAGS.has(node.name)) {
        flush()
        const block = this.block(node)
        if (block.trim()) out.push(block)
      } else {
        run.push(node)
      }
    }
    flush()
    return out.join('\n\n')
  }

  private block(el: Element): string {
    const name = el.name
    if (/^h[1-6]$/.test(name)) {
      const text = this.inline(el.children).replace(/\s+/g, ' ').trim()
      if (!text) return ''
      return this.o.plain ? text : `${'#'.repeat(Number(name[1]))} ${text}`
    }
    switch (name) {
      case 'p':
        return this.blocks(el.children, true)
      case 'pre':
        return this.code(el)
      case 'ul':
      case 'ol':
      case 'menu':
      case 'dir':
        return this.list(el)
      case 'blockquote': {
        const inner = this.blocks(el.children)
        return this.o.plain
          ? inner
          : inner
              .split('\n')
              .map((l) => (l ? `> ${l}` : '>'))
              .join('\n')
      }
      case 'hr':
        return this.o.plain ? '' : '---'
      case 'table':
        return this.table(el)
      case 'dt':
        return this.o.plain ? this.blocks(el.children) : `**${this.inline(el.children).trim()}**`
      default:
        return this.blocks(el.children)
    }
  }

  private code(el: Element): string {
    const text = rawText(el).replace(/^\n/, '').replace(/\s+$/, '')
    if (!text) return ''
    if (this.o.plain) return text
    const lang = codeLanguage(el)
    const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((s) => s.length))
    const fence = '`'.repeat(longest + 1)
    return `${fence}${lang}\n${text}\n${fence}`
  }

  private list(el: Element): string {
    const ordered = el.name === 'ol'
    let n = Number(el.attribs.start ?? 1) || 1
    const items: string[] = []
    for (const child of el.children) {
      if (!isElement(child)) {
        if (isText(child) && child.data.trim()) items.push(`- ${child.data.trim()}`)
        continue
      }
      if (SKIP.has(child.name)) continue
      const body = child.name === 'li' ? this.blocks(child.children) : this.block(child)
      if (!body.trim()) continue
      if (child.name !== 'li') {
        items.push(body)
        continue
      }
      const marker = ordered ? `${n++}. ` : '- '
      const pad = ' '.repeat(marker.length)
      const lines = body.replace(/\n\n+/g, '\n').split('\n')
      items.push(lines.map((l, i) => (i === 0 ? marker + l : l ? pad + l : l)).join('\n'))
    }
    return items.join('\n')
  }

  private table(el: Element): string {
    const rows: Element[] = []
    let nested = false
    const collect = (node: Element) => {
      for (const c of node.children) {
        if (!isElement(c)) continue
        if (c.name === 'tr') rows.push(c)
        else if (c.name === 'thead' || c.name === 'tbody' || c.name === 'tfoot') collect(c)
      }
    }
    collect(el)
    const grid = rows.map((r) => r.children.filter((c): c is Element => isElement(c) && (c.name === 'td' || c.name === 'th')))
    for (const r of grid) for (const c of r) if (hasBlockDescendant(c)) nested = true
    const width = Math.max(0, ...grid.map((r) => r.length))
    // Layout tables (one column, or cells holding blocks) read better as the blocks they hold.
    if (nested || width < 2)
      return grid
        .map((r) =>
          r
            .map((c) => this.blocks(c.children))
            .filter(Boolean)
            .join('\n\n'),
        )
        .filter(Boolean)
        .join('\n\n')
    const cell = (c: Element | undefined) => (c ? this.inline(c.children).replace(/\s+/g, ' ').trim() : '')
    const caption = el.children.find((c): c is Element => isElement(c) && c.name === 'caption')
    const lines: string[] = []
    if (caption) lines.push(this.inline(caption.children).trim(), '')
    if (this.o.plain) {
      for (const r of grid) lines.push(r.map(cell).join('\t'))
      return lines.join('\n').trim()
    }
    const fmt = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`
    const pad = (r: Element[]) => Array.from({ length: width }, (_, i) => cell(r[i]))
    lines.push(fmt(pad(grid[0]!)), fmt(Array(width).fill('---')))
    for (const r of grid.slice(1)) lines.push(fmt(pad(r)))
    return lines.join('\n')
  }

  /** Inline content; newlines only from <br>. */
  inline(nodes: readonly AnyNode[]): string {
    let out = ''
    for (const node of nodes) {
      if (isText(node)) {
        const t = node.data.replace(/\s+/g, ' ')
        out += this.o.plain ? t : escapeInline(t)
        continue
      }
      if (!isElement(node) || SKIP.has(node.name)) continue
      out += this.inlineElement(node)
    }
    return out.replace(/ *\n */g, '\n').replace(/ {2,}/g, ' ')
  }

  private inlineElement(el: Element): string {
    switch (el.name) {
      case 'br':
        return '\n'
      case 'img': {
        const src = absoluteUrl(imageSource(el), this.o.baseUrl)
        const alt = (el.attribs.alt ?? '').replace(/\s+/g, ' ').trim()
        // A tracking pixel says nothing; an emoji drawn as an image says its alt text.
        if (!src || isNonImage(el, src)) return isEmoji(el) ? alt : ''
        this.o.images.push(src)
        if (this.o.plain) return ''
        return `![${alt.replace(/[[\]]/g, '')}](${src.replace(/[()\s]/g, encodeURIComponent)})`
      }
      case 'a': {
        const text = this.inline(el.children)
        const href = absoluteUrl(el.attribs.href, this.o.baseUrl)
        if (!href || !/^https?:/i.test(href) || !text.trim()) return text
        this.o.links.push({ url: href, text: textOf(el) })
        if (this.o.plain) return text
        const [lead, core, tail] = splitSpace(text)
        return `${lead}[${core.replace(/\n/g, ' ')}](${href.replace(/[()\s]/g, encodeURIComponent)})${tail}`
      }
      case 'strong':
      case 'b':
        return this.wrap(el, '**')
      case 'em':
      case 'i':
      case 'cite':
        return this.wrap(el, '*')
      case 'del':
      case 's':
      case 'strike':
        return this.wrap(el, '~~')
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt': {
        const text = rawText(el).replace(/\s+/g, ' ')
        if (this.o.plain || !text.trim()) return text
        const ticks = text.includes('`') ? '``' : '`'
        return `${ticks}${ticks.length > 1 ? ' ' : ''}${text}${ticks.length > 1 ? ' ' : ''}${ticks}`
      }
      case 'sup':
      case 'sub':
        return this.inline(el.children)
      default:
        // A block inside inline context (a <div> in a <span> or <a>) still breaks the line.
        if (BLOCK_TAGS.has(el.name)) return `\n${this.inline(el.children)}\n`
        return this.inline(el.children)
    }
  }

  private wrap(el: Element, mark: string): string {
    const text = this.inline(el.children)
    if (this.o.plain || !text.trim()) return text
    const [lead, core, tail] = splitSpace(text)
    return `${lead}${mark}${core}${mark}${tail}`
  }
}

function splitSpace(text: string): [string, string, string] {
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!
  return [m[1]!, m[2]!, m[3]!]
}

function hasBlockDescendant(el: Element): boolean {
  for (const c of el.children) {
    if (!isElement(c)) continue
    if (c.name === 'table' || c.name === 'ul' || c.name === 'ol' || c.name === 'pre' || c.name === 'blockquote' || /^h[1-6]$/.test(c.name)) return true
    if (c.name === 'p' || c.name === 'div') {
      if (c.prev || c.next) return true
    }
    if (hasBlockDescendant(c)) return true
  }
  return false
}

const LANG_PATTERNS = [/(?:^|\s)(?:language|lang)-([\w+#.-]+)/i, /(?:^|\s)brush:\s*([\w+#-]+)/i, /(?:^|\s)highlight-(?:source-)?([\w+#-]+)/i]

/** The code's language from `language-x`/`lang-x`/`brush: x`/`highlight-x` on <pre> or <code>. */
export function codeLanguage(pre: Element): string {
  const code = pre.children.find((c): c is Element => isElement(c) && c.name === 'code')
  for (const el of [code, pre, pre.parent as Element | null]) {
    if (!el || !('attribs' in el)) continue
    const cls = `${el.attribs.class ?? ''} ${el.attribs['data-lang'] ? `lang-${el.attribs['data-lang']}` : ''}`
    for (const re of LANG_PATTERNS) {
      const m = re.exec(cls)
      if (m?.[1] && !/^(none|plain|text|nohighlight)$/i.test(m[1])) return m[1].toLowerCase()
    }
  }
  return ''
}

/** Writes `nodes` as GFM Markdown (or plain text), collecting links and images as it goes. */
export function writeMarkdown(nodes: readonly AnyNode[], o: WriteOptions): string {
  const text = new Writer(o).blocks(nodes)
  return text.replace(/\n{3,}/g, '\n\n').trim()
}
