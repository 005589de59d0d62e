import type { AnyNode } from 'domhandler'
import { parseDocument } from 'htmlparser2'
import { requireOnFirstUse } from '../paths.ts'

// linkedom (about 14 MB resident) and Readability are loaded the first time a page needs this
// fallback: most never do.
const linkedom = requireOnFirstUse<typeof import('linkedom')>('linkedom')
const readability = requireOnFirstUse<typeof import('@mozilla/readability')>('@mozilla/readability')
const parseHTML = (html: string) => linkedom().parseHTML(html)
const readabilityClass = () => readability().Readability

/**
 * Readability.js on linkedom, used when Trawl's extractor finds too little prose (pages built
 * from many short blocks, unusual markup). Its output HTML is re-parsed into htmlparser2 nodes
 * so the same writer renders both paths. `<base href>` is injected because linkedom has no
 * baseURI; class names are kept so code-fence languages survive.
 */
export function readabilityNodes(html: string, baseUrl: string): { nodes: AnyNode[]; textLength: number } | null {
  const base = `<base href="${baseUrl.replace(/"/g, '&quot;')}">`
  const withBase = /<head(\s[^>]*)?>/i.test(html) ? html.replace(/<head(\s[^>]*)?>/i, (m) => `${m}${base}`) : `${base}${html}`
  try {
    const { document } = parseHTML(withBase)
    const article = new (readabilityClass())(document as unknown as Document, { keepClasses: true, charThreshold: 300 }).parse()
    if (!article?.content) return null
    return { nodes: parseDocument(article.content).children, textLength: article.length ?? 0 }
  } catch {
    return null // a page that breaks Readability is simply not rescued by it
  }
}
