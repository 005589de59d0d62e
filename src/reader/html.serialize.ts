import type { AnyNode, Element } from 'domhandler'
import { absoluteUrl, isElement, isText, NON_CONTENT_TAGS } from './dom.utils.ts'
import { imageSource, isNonImage } from './image.source.ts'
import { codeLanguage } from './markdown.convert.ts'

/**
 * Clean HTML of the main content: structure only, no class/style/id/data-* or event attributes,
 * links and images absolute. Written here because the serializer must rewrite attributes anyway.
 */

const VOID = new Set(['br', 'hr', 'img', 'wbr', 'source', 'col'])
const DROP = new Set([...NON_CONTENT_TAGS, 'form'])
// Wrappers whose tags carry no meaning once styling is gone; their children are kept.
const UNWRAP = new Set(['span', 'font', 'center', 'html', 'body', 'main', 'article', 'section', 'header', 'div', 'picture', 'source'])
const KEEP_ATTRS: Record<string, string[]> = {
  td: ['colspan', 'rowspan'],
  th: ['colspan', 'rowspan', 'scope'],
  ol: ['start'],
  time: ['datetime'],
  abbr: ['title'],
}

const escText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const escAttr = (s: string) => escText(s).replace(/"/g, '&quot;')

export function serializeCleanHtml(nodes: readonly AnyNode[], baseUrl: string): string {
  let out = ''
  const write = (node: AnyNode, inPre: boolean) => {
    if (isText(node)) {
      out += escText(inPre ? node.data : node.data.replace(/\s+/g, ' '))
      return
    }
    if (!isElement(node) || DROP.has(node.name)) return
    const el = node as Element
    const name = el.name
    if (UNWRAP.has(name)) {
      const block = name !== 'span' && name !== 'font'
      if (block) out += '\n'
      for (const c of el.children) write(c, inPre)
      if (block) out += '\n'
      return
    }
    let attrs = ''
    if (name === 'a') {
      const href = absoluteUrl(el.attribs.href, baseUrl)
      if (href) attrs += ` href="${escAttr(href)}"`
    } else if (name === 'img') {
      const src = absoluteUrl(imageSource(el), baseUrl)
      if (!src || isNonImage(el, src)) return
      attrs += ` src="${escAttr(src)}"`
      if (el.attribs.alt) attrs += ` alt="${escAttr(el.attribs.alt)}"`
    } else if (name === 'code' && el.parent && (el.parent as Element).name === 'pre') {
      const lang = codeLanguage(el.parent as Element)
      if (lang) attrs += ` class="language-${escAttr(lang)}"`
    }
    for (const a of KEEP_ATTRS[name] ?? []) if (el.attribs[a]) attrs += ` ${a}="${escAttr(el.attribs[a]!)}"`
    out += `<${name}${attrs}>`
    if (VOID.has(name)) return
    for (const c of el.children) write(c, inPre || name === 'pre')
    out += `</${name}>`
  }
  for (const n of nodes) write(n, false)
  return out.replace(/\n\s*\n+/g, '\n').trim()
}
