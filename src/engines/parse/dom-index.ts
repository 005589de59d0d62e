/**
 * One walk over a parsed page, kept for the page's lifetime: every element in document order, so
 * "the elements inside X" is a contiguous slice of one array and "is A inside B" is two number
 * comparisons. Readers that would run a CSS selector over the whole body again and again use it
 * instead; the parsers never change a tree, so the index stays true.
 */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script' || node.type === 'style'

/** Document-order positions of a page's elements (`get` is undefined for a node of another tree). */
export interface Positions {
  get(el: Element): number | undefined
}

// Positions are kept on the nodes themselves: a property read is several times cheaper than a Map
// lookup, and a page's thousands of Map entries were a good part of the garbage left per parse. A
// subtree may get an index of its own, which overwrites the positions of its nodes; an index
// therefore trusts a position only when its own array holds the node there.
const POS = Symbol('position')
type Positioned = Element & { [POS]?: number }

export class DomIndex implements Positions {
  /** Every element, in document order. */
  readonly elements: Element[] = []
  /** Document-order position of each element. */
  readonly order: Positions = this
  /** Position of each element's last descendant (its own position when it has none), by position. */
  private readonly last: number[] = []
  private ids?: Map<string, Element[]>
  private readonly byTag = new Map<string, number[]>()
  private readonly byAttr = new Map<string, number[]>()

  constructor(private readonly root: AnyNode) {
    this.walk(root)
  }

  /** Lists `n` and its subtree in document order (indexed loops: a for-of allocates an iterator per node until optimised). */
  private walk(n: AnyNode): void {
    const element = isElement(n)
    const at = this.elements.length
    if (element) {
      ;(n as Positioned)[POS] = at
      this.elements.push(n)
      const tagged = this.byTag.get(n.name)
      if (tagged) tagged.push(at)
      else this.byTag.set(n.name, [at])
    }
    const kids = (n as { children?: AnyNode[] }).children
    if (kids) for (let i = 0; i < kids.length; i++) this.walk(kids[i] as AnyNode)
    if (element) this.last[at] = this.elements.length - 1
  }

  /** Document-order position of `el`, undefined when this index does not hold it. */
  get(el: Element): number | undefined {
    const at = (el as Positioned)[POS]
    return at !== undefined && this.elements[at] === el ? at : undefined
  }

  /** Positions (ascending) of the elements with this tag name. */
  positionsOfTag(name: string): readonly number[] {
    return this.byTag.get(name) ?? []
  }

  /** Positions (ascending) of the elements carrying this attribute (all names listed in one pass, on first use). */
  positionsWithAttribute(name: string): readonly number[] {
    if (!this.attrsListed) {
      this.attrsListed = true
      for (let i = 0; i < this.elements.length; i++) {
        for (const key in (this.elements[i] as Element).attribs) {
          const list = this.byAttr.get(key)
          if (list) list.push(i)
          else this.byAttr.set(key, [i])
        }
      }
    }
    return this.byAttr.get(name) ?? []
  }
  private attrsListed = false

  /** The range of positions strictly inside `scope`: the whole page for the root, undefined for a node of another tree. */
  range(scope: AnyNode): [number, number] | undefined {
    if (scope === this.root) return [isElement(scope) ? 1 : 0, this.elements.length - 1]
    const at = this.get(scope as Element)
    if (at === undefined) return undefined
    return [at + 1, this.last[at] ?? at]
  }

  /** Elements strictly inside `scope` that pass `test`, in document order (like `$(scope).find(selector)`). */
  findAll(scope: AnyNode, test: (el: Element) => boolean): Element[] {
    const range = this.range(scope)
    if (!range) return domIndex(scope).findAll(scope, test)
    const out: Element[] = []
    for (let i = range[0]; i <= range[1]; i++) {
      const el = this.elements[i] as Element
      if (test(el)) out.push(el)
    }
    return out
  }

  /** The first element strictly inside `scope` that passes `test`. */
  findFirst(scope: AnyNode, test: (el: Element) => boolean): Element | undefined {
    const range = this.range(scope)
    if (!range) return domIndex(scope).findFirst(scope, test)
    for (let i = range[0]; i <= range[1]; i++) {
      const el = this.elements[i] as Element
      if (test(el)) return el
    }
    return undefined
  }

  /** True when `el` is strictly inside `scope`. */
  inside(el: Element, scope: AnyNode): boolean {
    const at = this.get(el)
    const range = this.range(scope)
    if (at === undefined || !range) return isDescendant(el, scope)
    return at >= range[0] && at <= range[1]
  }

  /** The first element with this id, in document order (like `$('#id')[0]`). */
  byId(id: string): Element | undefined {
    return this.allById(id)[0]
  }

  /** Every element with this id, in document order. */
  allById(id: string): Element[] {
    if (!this.ids) {
      this.ids = new Map()
      // Only the elements that have an id: reading `attribs.id` off every element cost more.
      const withId = this.positionsWithAttribute('id')
      for (let i = 0; i < withId.length; i++) {
        const el = this.elements[withId[i] as number] as Element
        const v = el.attribs.id as string
        const list = this.ids.get(v)
        if (list) list.push(el)
        else this.ids.set(v, [el])
      }
    }
    return this.ids.get(id) ?? []
  }
}

function isDescendant(node: AnyNode, of: AnyNode): boolean {
  for (let cur = node.parent; cur; cur = cur.parent) if (cur === of) return true
  return false
}

const cache = new WeakMap<AnyNode, DomIndex>()
const documents = new WeakMap<CheerioAPI, AnyNode>()

/**
 * The document node of a loaded page, like `$.root()[0]`. Readers ask for it hundreds of times a
 * page, and each `$.root()` builds two cheerio wrappers and their options.
 */
export function documentOf($: CheerioAPI): AnyNode {
  let doc = documents.get($)
  if (!doc) {
    doc = $.root()[0] as AnyNode
    documents.set($, doc)
  }
  return doc
}

/** The index of the document `root` (built on first use). */
export function domIndex(root: AnyNode): DomIndex {
  let index = cache.get(root)
  if (!index) {
    index = new DomIndex(root)
    cache.set(root, index)
  }
  return index
}

/** The nearest ancestor-or-self of `el` passing `test` (like cheerio's `closest`), stopping at the document. */
export function closest(el: AnyNode | null | undefined, test: (el: Element) => boolean): Element | undefined {
  for (let cur = el; cur && isElement(cur); cur = cur.parent) if (test(cur)) return cur
  return undefined
}

/** Whitespace-separated class list contains `name` (like `.name` in a selector). */
export function hasClass(el: Element, name: string): boolean {
  const cls = el.attribs.class
  if (!cls) return false
  // css-select's `~=`: separated by any JavaScript whitespace.
  return cls === name || (cls.includes(name) && cls.split(/\s/).includes(name))
}
