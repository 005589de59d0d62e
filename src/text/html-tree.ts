/**
 * A domhandler tree built straight from htmlparser2's public Tokenizer, the same tree
 * `parseDocument(html)` builds (HTML mode, entities decoded), for about half the cost past the
 * tokenizer. Written by hand because the tree is most of a result page's parse: htmlparser2's
 * Parser slices and lower-cases every tag and attribute name into a fresh string, which V8 must
 * then hash again to use as an attribute key, and hands each node through a generic handler.
 * Here the names a page repeats thousands of times (`div`, `class`, `href`) are recognised in
 * place and shared, and nodes are linked as they come. The tree rules (implied closes, void
 * elements, foreign content, `</p>` and `</br>`) are htmlparser2 10's Parser's; a test holds the
 * two trees equal over every saved page and generated tag soup (html-tree.test.ts).
 */
import { Comment, Document, Element, type ParentNode, ProcessingInstruction, Text } from 'domhandler'
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2'

const formTags = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'])
const pTag = new Set(['p'])
const tableSectionTags = new Set(['thead', 'tbody'])
const ddtTags = new Set(['dd', 'dt'])
const rtpTags = new Set(['rt', 'rp'])
/** Opening the key closes the open elements (from the innermost) named in its set. */
const openImpliesClose = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', ddtTags],
  ['dt', ddtTags],
  ['rt', rtpTags],
  ['rp', rtpTags],
  ['tbody', tableSectionTags],
  ['tfoot', tableSectionTags],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((t): [string, Set<string>] => [t, formTags]),
  ...[
    ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset'],
    ...['figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'],
  ].map((t): [string, Set<string>] => [t, pTag]),
])
const voidElements = new Set([
  ...['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link'],
  ...['meta', 'param', 'source', 'track', 'wbr'],
])
const foreignContextElements = new Set(['math', 'svg'])
const htmlIntegrationElements = new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignobject', 'desc', 'title'])

/**
 * Names shared instead of sliced: the tags and attributes that make up most of any page. A name
 * not listed is sliced and lower-cased as the Parser does, so the list only decides speed.
 */
const COMMON_NAMES = [
  ...['html', 'head', 'body', 'meta', 'link', 'title', 'script', 'style', 'noscript', 'template', 'base', 'div', 'span', 'a'],
  ...['img', 'svg', 'path', 'g', 'p', 'br', 'hr', 'b', 'i', 'em', 'strong', 'small', 'cite', 'code', 'pre', 'ul', 'ol', 'li'],
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'td', 'th', 'form', 'input', 'button', 'label'],
  ...['select', 'option', 'textarea', 'section', 'article', 'nav', 'header', 'footer', 'main', 'aside', 'figure', 'time'],
  ...['picture', 'source', 'iframe', 'g-img', 'g-link', 'g-popup', 'g-snackbar', 'g-scrolling-carousel', 'g-inner-card'],
  ...['class', 'id', 'href', 'src', 'style', 'role', 'alt', 'lang', 'width', 'height', 'type', 'name', 'content', 'value'],
  ...['rel', 'target', 'tabindex', 'srcset', 'sizes', 'loading', 'decoding', 'property', 'charset', 'dir', 'nonce'],
  ...['viewbox', 'fill', 'd', 'xmlns', 'focusable', 'action', 'method', 'for', 'datetime', 'colspan', 'rowspan', 'hidden'],
  ...['aria-label', 'aria-hidden', 'aria-level', 'aria-expanded', 'aria-controls', 'aria-labelledby', 'aria-haspopup'],
  ...['jsname', 'jsaction', 'jscontroller', 'jsmodel', 'jsdata', 'jsslot', 'jsshadow', 'ping', 'data-ved', 'data-hveid'],
  ...['data-src', 'data-attrid', 'data-q', 'data-id', 'data-url', 'data-docid', 'data-lpage', 'data-async-context'],
]
/** COMMON_NAMES by length and first letter: a name is compared only with the few that could match. */
const namesByShape = new Map<number, string[]>()
for (const name of COMMON_NAMES) {
  const shape = name.length * 128 + name.charCodeAt(0)
  const list = namesByShape.get(shape)
  if (list) list.push(name)
  else namesByShape.set(shape, [name])
}

/** Whether `html` from `start` spells the lower-case `name` in any ASCII case. */
function spells(html: string, start: number, name: string): boolean {
  for (let i = 1; i < name.length; i++) {
    const want = name.charCodeAt(i)
    const c = html.charCodeAt(start + i)
    if (c !== want && !(want >= 97 && want <= 122 && c === want - 32)) return false
  }
  return true
}

/** The lower-case name at [start, end): a shared string when it is a common one, else a new one. */
function nameAt(html: string, start: number, end: number): string {
  let first = html.charCodeAt(start)
  if (first >= 65 && first <= 90) first += 32
  const candidates = namesByShape.get((end - start) * 128 + first)
  if (candidates) {
    for (let k = 0; k < candidates.length; k++) {
      const name = candidates[k] as string
      if (spells(html, start, name)) return name
    }
  }
  return html.slice(start, end).toLowerCase()
}

const hasOwn = Object.prototype.hasOwnProperty

/**
 * Elements open at once, at most. Real pages nest a few dozen deep (Google's result pages about
 * 60); a page nested 100,000 deep would make every recursive walk of the tree (extraction,
 * Markdown, selectors) overflow its stack or hold huge frames. Past this depth an element is left
 * out, and what it holds goes to the element at the limit, so the text is still read.
 */
export const MAX_DEPTH = 512

/** Builds the tree of one document: `buildDocument(html)`. */
class TreeBuilder implements TokenizerCallbacks {
  readonly root = new Document([])
  /** Open elements, innermost last (the document first): where the next node goes. */
  private readonly open: ParentNode[] = [this.root]
  /** Names of the open elements, innermost last: the Parser's stack, for implied and stray closes. */
  private readonly names: string[] = []
  /** Whether each open foreign or integration element makes its content foreign (self-closing tags). */
  private readonly foreign: boolean[] = [false]
  /** The text node that adjacent text joins, if the last node added was one. */
  private lastText: Text | null = null
  private tagName = ''
  private attribs: Record<string, string> | null = null
  private attribName = ''
  private attribValue = ''
  /** Elements left out past MAX_DEPTH, by name: their close tags are then ignored. */
  private readonly flattened = new Map<string, number>()
  private everFlattened = false

  constructor(private readonly html: string) {}

  /** Whether elements past MAX_DEPTH were left out. */
  leftOut(): boolean {
    return this.everFlattened
  }

  private add(node: Element | Text | Comment | ProcessingInstruction): void {
    const parent = this.open[this.open.length - 1] as ParentNode
    const kids = parent.children
    const previous = kids[kids.length - 1]
    // An element's first child goes into an array of one: a push onto the empty array reserves
    // 17 slots, and most elements of a result page hold one child.
    if (kids.length === 0) parent.children = [node]
    else kids.push(node)
    if (previous) {
      node.prev = previous
      previous.next = node
    }
    node.parent = parent
    this.lastText = null
  }

  private closeInnermost(): void {
    this.lastText = null
    this.names.pop()
    this.open.pop()
  }

  private emitOpenTag(name: string): void {
    this.tagName = name
    const impliesClose = openImpliesClose.get(name)
    if (impliesClose) {
      while (this.names.length > 0 && impliesClose.has(this.names[this.names.length - 1] as string)) this.closeInnermost()
    }
    if (!voidElements.has(name)) {
      if (foreignContextElements.has(name)) this.foreign.push(true)
      else if (htmlIntegrationElements.has(name)) this.foreign.push(false)
    }
    this.attribs = {}
  }

  private endOpenTag(): void {
    const name = this.tagName
    if (this.attribs && this.names.length >= MAX_DEPTH && !voidElements.has(name)) {
      this.flattened.set(name, (this.flattened.get(name) ?? 0) + 1)
      this.everFlattened = true
      this.attribs = null
    }
    if (this.attribs) {
      const element = new Element(name, this.attribs)
      this.add(element)
      // A void element takes no children: it is closed as soon as it is open.
      if (!voidElements.has(name)) {
        this.open.push(element)
        this.names.push(name)
      }
      this.attribs = null
    }
    this.tagName = ''
  }

  ontext(start: number, endIndex: number): void {
    this.addText(this.html.slice(start, endIndex))
  }

  ontextentity(cp: number): void {
    this.addText(String.fromCodePoint(cp))
  }

  private addText(data: string): void {
    if (this.lastText) {
      this.lastText.data += data
      return
    }
    const node = new Text(data)
    this.add(node)
    this.lastText = node
  }

  onopentagname(start: number, endIndex: number): void {
    this.emitOpenTag(nameAt(this.html, start, endIndex))
  }

  onopentagend(): void {
    this.endOpenTag()
  }

  onclosetag(start: number, endIndex: number): void {
    const name = nameAt(this.html, start, endIndex)
    if (foreignContextElements.has(name) || htmlIntegrationElements.has(name)) this.foreign.pop()
    const kept = this.flattened.get(name)
    if (kept) {
      this.flattened.set(name, kept - 1)
      return
    }
    if (!voidElements.has(name)) {
      const at = this.names.lastIndexOf(name)
      if (at !== -1) {
        while (this.names.length > at) this.closeInnermost()
      } else if (name === 'p') {
        // `</p>` with no open <p>: an empty one.
        this.emitOpenTag('p')
        this.closeCurrentTag()
      }
    } else if (name === 'br') {
      // `</br>` is a <br>.
      this.add(new Element('br', {}))
    }
  }

  onselfclosingtag(): void {
    // Only inside svg and math does `/>` close the element; in HTML it is an open tag.
    if (this.foreign[this.foreign.length - 1]) this.closeCurrentTag()
    else this.endOpenTag()
  }

  private closeCurrentTag(): void {
    const name = this.tagName
    this.endOpenTag()
    if (this.names[this.names.length - 1] === name) this.closeInnermost()
  }

  onattribname(start: number, endIndex: number): void {
    this.attribName = nameAt(this.html, start, endIndex)
  }

  onattribdata(start: number, endIndex: number): void {
    const part = this.html.slice(start, endIndex)
    this.attribValue = this.attribValue === '' ? part : this.attribValue + part
  }

  onattribentity(cp: number): void {
    this.attribValue += String.fromCodePoint(cp)
  }

  onattribend(): void {
    const attribs = this.attribs
    // The first of repeated attributes wins, as in the Parser (an own property: `constructor` is a name too).
    if (attribs && (attribs[this.attribName] === undefined || !hasOwn.call(attribs, this.attribName))) attribs[this.attribName] = this.attribValue
    this.attribValue = ''
  }

  ondeclaration(start: number, endIndex: number): void {
    const value = this.html.slice(start, endIndex)
    this.add(new ProcessingInstruction(`!${instructionName(value)}`, `!${value}`))
  }

  onprocessinginstruction(start: number, endIndex: number): void {
    const value = this.html.slice(start, endIndex)
    this.add(new ProcessingInstruction(`?${instructionName(value)}`, `?${value}`))
  }

  oncomment(start: number, endIndex: number, offset: number): void {
    this.add(new Comment(this.html.slice(start, endIndex - offset)))
  }

  oncdata(start: number, endIndex: number, offset: number): void {
    // HTML has no CDATA sections: the Parser keeps them as comments.
    this.add(new Comment(`[CDATA[${this.html.slice(start, endIndex - offset)}]]`))
  }

  onend(): void {}
}

/** The lower-cased first word of a declaration or processing instruction (`!doctype`). */
function instructionName(value: string): string {
  const end = value.search(/\s|\//)
  return (end < 0 ? value : value.slice(0, end)).toLowerCase()
}

const TOKENIZER_OPTIONS = { xmlMode: false, decodeEntities: true }

/** Documents whose elements past MAX_DEPTH were left out. */
const tooDeep = new WeakSet<Document>()

/** Whether `doc`'s page nested past MAX_DEPTH: code that walks the raw page again (a second parser) should not. */
export function nestedTooDeep(doc: Document): boolean {
  return tooDeep.has(doc)
}

/** The document tree of `html`, as htmlparser2's `parseDocument(html)` builds it (up to MAX_DEPTH). */
export function buildDocument(html: string): Document {
  const builder = new TreeBuilder(html)
  const tokenizer = new Tokenizer(TOKENIZER_OPTIONS, builder)
  tokenizer.write(html)
  tokenizer.end()
  if (builder.leftOut()) tooDeep.add(builder.root)
  return builder.root
}
