import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import TurndownService from 'turndown'
import { gfm } from 'turndown-plugin-gfm'

/**
 * The stack STACK.md measured as the starting point: Readability 0.6 on linkedom (with an injected
 * `<base href>`, since linkedom has no baseURI) and turndown with the GFM plugin. The harness runs
 * it in the same process as Trawl's reader so both are timed on the same machine state.
 */
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
turndown.use(gfm)

export function readWithReadability(html: string, url: string): { title: string | null; markdown: string } {
  const withBase = html.replace(/<head(\s[^>]*)?>/i, (m) => `${m}<base href="${url.replace(/"/g, '&quot;')}">`)
  const { document } = parseHTML(withBase.includes('<base href') ? withBase : `<base href="${url}">${html}`)
  const article = new Readability(document as unknown as Document, { keepClasses: true }).parse()
  if (!article?.content) return { title: article?.title ?? null, markdown: '' }
  return { title: article.title ?? null, markdown: turndown.turndown(article.content) }
}
