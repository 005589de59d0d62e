import type { AnyNode, Element, ParentNode } from 'domhandler'
import { furnitureLevel } from './content.extract.ts'
import { absoluteUrl, isElement, textOf } from './dom.utils.ts'
import { declaredSize, imageSource, isNonImage } from './image.source.ts'
import type { ReadLink } from './reading.types.ts'

/**
 * `links` and `images` of a read page (`include_links`, `include_images`).
 *
 * Links: every `<a href>` and `<area href>` of the page, navigation, header, footer and sidebars
 * included, because a caller asking for a page's links wants all of them (and a link item has
 * no field to say where a link sat). The main content's links come first, in reading order, then
 * the rest of the page in document order. Absolute http(s) URLs only, de-duplicated on the exact
 * URL (first position kept, the first non-empty text kept), links to the page itself (`#top`,
 * skip links) left out. An image-only link is named by the image's alt text, then by its
 * aria-label or title.
 *
 * Images: every image of the main content (lazy-loaded ones by their real address, the largest
 * `srcset` or `<picture>` candidate when there is no `src`), then the page's other pictures in
 * document order: those outside page furniture (navigation, banner header, footer, sidebars,
 * comments, share bars, ads), not hidden, not wrapped in a link to another page (teasers, logos,
 * ad banners) and not declared smaller than 64 px (icons, avatars). Never listed: data: URIs,
 * placeholders, tracking pixels (at most 1 px on every declared side, or from an analytics beacon
 * host) and emoji. PDFs and plain text have neither list (both empty).
 */

export interface PageAssets {
  links: ReadLink[]
  images: string[]
}

// Never the page's links or pictures: code, inert templates, drawings, form controls (a button's icon).
const SKIP = new Set(['script', 'style', 'template', 'svg', 'math', 'head', 'title', 'textarea', 'button', 'select'])
const ARTICLE = new Set(['article', 'main'])
// Image wrappers that never hold the page's own pictures, by class or id word.
const IMAGE_NOISE =
  /(?:^|[-_\s])(?:ads?|advert|advertisement|adslot|ad-slot|dfp|sponsor|sponsored|promo|rail|logo|avatar|icons?|badge|emoji|sprite)(?:[-_\s]|$)/i
// The same words as a folder or file name of the image ("/icons/navi.png", "logo-print.jpg").
const ICON_PATH = /(?:^|[/_.-])(?:logos?|icons?|sprites?|avatars?|badges?)(?:[/_.-]|$)/i
const ICON_SIZE = 64
const IMAGE_FILE = /\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?)(?:[?#]|$)/i

const withoutFragment = (url: string) => url.replace(/#.*$/, '')
const isHttp = (url: string | undefined): url is string => !!url && /^https?:/i.test(url)

function isHidden(el: Element): boolean {
  if (el.attribs.hidden !== undefined) return true
  const style = el.attribs.style
  return !!style && /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style)
}

function firstImageAlt(el: Element): string {
  const stack: AnyNode[] = [...el.children]
  while (stack.length > 0) {
    const n = stack.shift()!
    if (!isElement(n)) continue
    if (n.name === 'img' && n.attribs.alt?.trim()) return n.attribs.alt.replace(/\s+/g, ' ').trim()
    stack.push(...n.children)
  }
  return ''
}

/** What a link says: its text, else an image's alt, else its aria-label or title (`<area>`: alt). */
function linkText(el: Element): string {
  return (
    textOf(el) ||
    firstImageAlt(el) ||
    [el.attribs['aria-label'], el.attribs.title, el.attribs.alt].map((s) => s?.replace(/\s+/g, ' ').trim() ?? '').find(Boolean) ||
    ''
  )
}

class Collector {
  private readonly links = new Map<string, ReadLink>()
  private readonly images = new Set<string>()
  private readonly page: string
  constructor(
    private readonly baseUrl: string,
    pageUrl: string,
  ) {
    this.page = withoutFragment(pageUrl)
  }

  link(el: Element): void {
    const url = absoluteUrl(el.attribs.href, this.baseUrl)
    if (!isHttp(url) || withoutFragment(url) === this.page) return
    const known = this.links.get(url)
    if (known?.text) return
    const text = linkText(el)
    if (known) known.text = text
    else this.links.set(url, { url, text })
  }

  /** The image's absolute URL, or undefined when it is no picture of the page. */
  imageUrl(el: Element): string | undefined {
    const url = absoluteUrl(imageSource(el), this.baseUrl)
    return isHttp(url) && !isNonImage(el, url) ? url : undefined
  }

  image(url: string): void {
    this.images.add(url)
  }

  result(): PageAssets {
    return { links: [...this.links.values()], images: [...this.images] }
  }
}

const isImage = (el: Element) => el.name === 'img' || el.name === 'amp-img'

/** Links and images of the content as read (the nodes the writer renders), in reading order. */
export function contentAssets(nodes: readonly AnyNode[], baseUrl: string, pageUrl: string): PageAssets {
  const out = new Collector(baseUrl, pageUrl)
  const stack: AnyNode[] = [...nodes].reverse()
  while (stack.length > 0) {
    const n = stack.pop()!
    if (!isElement(n) || SKIP.has(n.name)) continue
    if ((n.name === 'a' || n.name === 'area') && n.attribs.href) out.link(n)
    else if (isImage(n)) {
      const url = out.imageUrl(n)
      if (url) out.image(url)
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!)
  }
  return out.result()
}

interface Context {
  /** Inside navigation, a banner header, a footer, a sidebar, comments, ads. */
  furniture: boolean
  hidden: boolean
  inArticle: boolean
  /** Inside a link to something other than an image file. */
  linkedAway: boolean
}

/**
 * Every link of the whole page and the pictures outside its furniture, from the document as parsed
 * (before the reader prunes hidden blocks and `<noscript>`, where lazy loaders keep the real `<img>`).
 */
export function pageAssets(doc: ParentNode, baseUrl: string, pageUrl: string): PageAssets {
  const out = new Collector(baseUrl, pageUrl)
  const root: Context = { furniture: false, hidden: false, inArticle: false, linkedAway: false }
  const stack: [AnyNode, Context][] = [...doc.children].reverse().map((n) => [n, root])
  while (stack.length > 0) {
    const [n, ctx] = stack.pop()!
    if (!isElement(n) || SKIP.has(n.name)) continue
    const name = n.name
    if ((name === 'a' || name === 'area') && n.attribs.href) out.link(n)
    else if (isImage(n)) {
      const url = out.imageUrl(n)
      if (url && !ctx.furniture && !ctx.hidden && !ctx.linkedAway && !isHidden(n) && !looksLikeIcon(n, url)) out.image(url)
    }
    if (n.children.length === 0) continue
    // A picture inside a link to another page is that page's teaser, logo or ad; a link to the
    // image file itself (a lightbox) or to this page keeps it. `javascript:` links are widgets.
    const href = name === 'a' ? n.attribs.href?.trim() : undefined
    const target = href ? absoluteUrl(href, baseUrl) : undefined
    const away = !!href && (/^javascript:/i.test(href) || (!!target && withoutFragment(target) !== withoutFragment(pageUrl) && !IMAGE_FILE.test(target)))
    const child: Context = {
      furniture:
        ctx.furniture || furnitureLevel(n) === 2 || (name === 'header' && !ctx.inArticle) || IMAGE_NOISE.test(`${n.attribs.class ?? ''} ${n.attribs.id ?? ''}`),
      hidden: ctx.hidden || isHidden(n),
      inArticle: ctx.inArticle || ARTICLE.has(name) || n.attribs.role === 'main',
      linkedAway: ctx.linkedAway || away,
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push([n.children[i]!, child])
  }
  return out.result()
}

/** Declared icon-sized, or named (by class, id or file) as a logo, icon or avatar. */
function looksLikeIcon(el: Element, url: string): boolean {
  // 0 is "auto" to some CMSes (`width="570" height="0"`), so it says nothing about the size.
  const sides = [declaredSize(el, 'width'), declaredSize(el, 'height')].filter((d): d is number => d !== undefined && d > 0)
  if (sides.length > 0 && Math.max(...sides) < ICON_SIZE) return true
  return IMAGE_NOISE.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`) || ICON_PATH.test(new URL(url).pathname)
}

/** The content's links and images first, then the rest of the page's (see the file comment). */
export function mergeAssets(content: PageAssets, page: PageAssets | undefined): PageAssets {
  const links = new Map<string, ReadLink>()
  for (const l of [...content.links, ...(page?.links ?? [])]) {
    const known = links.get(l.url)
    if (!known) links.set(l.url, { ...l })
    else if (!known.text && l.text) known.text = l.text
  }
  return { links: [...links.values()], images: [...new Set([...content.images, ...(page?.images ?? [])])] }
}
