import type { AnyNode, Element, ParentNode } from 'domhandler'

/** Small helpers over htmlparser2's DOM (domhandler), which the reader uses for speed. */

export const isElement = (n: AnyNode): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style'
export const isText = (n: AnyNode): n is AnyNode & { data: string } => n.type === 'text'

/** Elements that start a new block of text when rendered. */
export const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'caption',
  'listing',
  'xmp',
  'plaintext',
  'frameset',
  'noframes',
])

/** Elements that never carry readable content: the extractor prunes them, the HTML writer drops them. */
export const NON_CONTENT_TAGS: ReadonlySet<string> = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'iframe',
  'object',
  'embed',
  'canvas',
  'button',
  'input',
  'select',
  'textarea',
  'link',
  'meta',
])

export const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'])

export function attr(el: Element, name: string): string | undefined {
  return el.attribs[name]
}

/** All text below `node`, entity-decoded by the parser, whitespace left as written. */
export function rawText(node: AnyNode): string {
  if (isText(node)) return node.data
  if (!('children' in node)) return ''
  let out = ''
  for (const c of (node as ParentNode).children) out += rawText(c)
  return out
}

export const collapse = (s: string) => s.replace(/\s+/g, ' ').trim()

export function textOf(node: AnyNode): string {
  return collapse(rawText(node))
}

export function removeNode(node: AnyNode): void {
  const parent = node.parent
  if (!parent) return
  const i = parent.children.indexOf(node as never)
  if (i >= 0) parent.children.splice(i, 1)
  const prev = node.prev
  const next = node.next
  if (prev) prev.next = next
  if (next) next.prev = prev
  node.parent = null
  node.prev = null
  node.next = null
}

/**
 * Removes many nodes at once. Removing one at a time costs an indexOf and a splice per node, which
 * is quadratic on the long flat child lists some pages have (thousands of table rows or <br>s); here
 * each affected parent's child list is filtered once and its siblings relinked.
 */
export function removeNodes(nodes: readonly AnyNode[]): void {
  const byParent = new Map<ParentNode, Set<AnyNode>>()
  for (const n of nodes) {
    const parent = n.parent
    if (!parent) continue
    const set = byParent.get(parent)
    if (set) set.add(n)
    else byParent.set(parent, new Set([n]))
  }
  for (const [parent, gone] of byParent) {
    const kept = parent.children.filter((c) => !gone.has(c))
    for (let i = 0; i < kept.length; i++) {
      kept[i]!.prev = kept[i - 1] ?? null
      kept[i]!.next = kept[i + 1] ?? null
    }
    parent.children = kept
    for (const n of gone) {
      n.parent = null
      n.prev = null
      n.next = null
    }
  }
}

/** Depth-first pre-order walk over elements; returning false skips an element's children. */
export function walkElements(root: ParentNode, visit: (el: Element) => boolean | undefined): void {
  const stack: AnyNode[] = [...root.children].reverse()
  while (stack.length > 0) {
    const node = stack.pop()!
    if (!isElement(node)) continue
    if (visit(node) === false) continue
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
}

export function findFirst(root: ParentNode, test: (el: Element) => boolean): Element | undefined {
  let found: Element | undefined
  walkElements(root, (el) => {
    if (found) return false
    if (test(el)) {
      found = el
      return false
    }
    return true
  })
  return found
}

export function findAll(root: ParentNode, test: (el: Element) => boolean): Element[] {
  const out: Element[] = []
  walkElements(root, (el) => {
    if (test(el)) out.push(el)
  })
  return out
}

/** Resolves `href` against the page; undefined for javascript:, data: (unless allowed) or garbage. */
export function absoluteUrl(href: string | undefined, base: string, allowData = false): string | undefined {
  if (!href) return undefined
  const trimmed = href.trim()
  if (!trimmed || /^(javascript|vbscript|about):/i.test(trimmed)) return undefined
  if (/^data:/i.test(trimmed)) return allowData ? trimmed : undefined
  try {
    return new URL(trimmed, base).href
  } catch {
    return undefined
  }
}

/** The parse events a streaming handler (htmlparser2's `Handler`) receives, as far as the readers here use them. */
export interface TagEvents {
  onopentag(name: string, attribs: Record<string, string>): void
  ontext(text: string): void
  onclosetag(name: string): void
}

/**
 * Replays an already built DOM as the open/text/close events a streaming parse of the same page
 * would give (the tree was built from those very events, implied closes included), so a reader
 * written as a streaming handler runs on a page the reader has parsed once already instead of
 * tokenizing it again. Adjacent text comes as one event where the stream may have split it.
 */
export function replayDom(nodes: readonly AnyNode[], events: TagEvents): void {
  // Iterative: a page of thousands of unclosed tags nests as deep, deeper than the call stack goes.
  const stack: { nodes: readonly AnyNode[]; next: number; closing?: string }[] = [{ nodes, next: 0 }]
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    if (top.next >= top.nodes.length) {
      stack.pop()
      if (top.closing !== undefined) events.onclosetag(top.closing)
      continue
    }
    const node = top.nodes[top.next++]!
    if (node.type === 'text') events.ontext((node as AnyNode & { data: string }).data)
    else if (isElement(node)) {
      events.onopentag(node.name, node.attribs)
      stack.push({ nodes: node.children, next: 0, closing: node.name })
    }
  }
}
