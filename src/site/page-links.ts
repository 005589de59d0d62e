import type { Document } from 'domhandler'
import { Parser } from 'htmlparser2'
import { replayDom, type TagEvents } from '../reader/dom.utils.ts'

export interface PageLink {
  url: string
  text: string
}

/**
 * Every `<a href>` of a page, absolute, with its text: what map and crawl follow (navigation
 * included, unlike the reader's content links). `<base href>` is honoured; `rel=nofollow` links
 * are kept (they are still pages of the site). A streaming parse: no DOM is built.
 */
export function extractPageLinks(html: string, pageUrl: string): PageLink[] {
  const collector = pageLinkCollector(pageUrl)
  const parser = new Parser(collector, { decodeEntities: true })
  parser.write(html)
  parser.end()
  return collector.links
}

/** The same links from a page the reader has parsed already (before it prunes the tree). */
export function pageLinksOf(doc: Document, pageUrl: string): PageLink[] {
  const collector = pageLinkCollector(pageUrl)
  replayDom(doc.children, collector)
  return collector.links
}

function pageLinkCollector(pageUrl: string): TagEvents & { links: PageLink[] } {
  const links: PageLink[] = []
  let base = pageUrl
  let open: { href: string; text: string } | null = null
  return {
    links,
    onopentag(name, attrs) {
      if (name === 'base' && attrs.href) {
        const resolved = resolve(attrs.href, pageUrl)
        if (resolved) base = resolved
      } else if (name === 'a' && attrs.href) {
        open = { href: attrs.href, text: '' }
      }
    },
    ontext(text) {
      if (open && open.text.length < 300) open.text += text
    },
    onclosetag(name) {
      if (name !== 'a' || !open) return
      const url = resolve(open.href, base)
      if (url) links.push({ url, text: open.text.replace(/\s+/g, ' ').trim() })
      open = null
    },
  }
}

function resolve(href: string, base: string): string | null {
  const trimmed = href.trim()
  if (!trimmed || trimmed.startsWith('#') || /^(javascript|mailto|tel|data):/i.test(trimmed)) return null
  try {
    const url = new URL(trimmed, base)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null
  } catch {
    return null
  }
}
