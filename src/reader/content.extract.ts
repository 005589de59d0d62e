import type { AnyNode, Document, Element, ParentNode } from 'domhandler'
import { isDateline } from './content.dateline.ts'
import { linksLeaveSite, type Site, siteOf } from './content.links.ts'
import { trailingSideBlocks } from './content.sideblocks.ts'
import { isTeaserIndex } from './content.teasers.ts'
import { dropTitleHeading } from './content.title.ts'
import { BLOCK_TAGS, collapse, HEADING_TAGS, isElement, isText, NON_CONTENT_TAGS, removeNodes, textOf } from './dom.utils.ts'

/**
 * Trawl's main-content extractor, on htmlparser2's DOM. Hand-written rather than Readability
 * alone because it is several times faster (no full DOM emulation, one scoring pass) and scores
 * better on the article benchmarks: it weighs prose against everything else in each subtree, so
 * it picks the smallest container that holds the article, then removes what sits inside that
 * container but is not article (share bars, related lists, bylines, comment threads).
 *
 * Units: text is grouped by its nearest block ancestor. A unit is prose when it is long enough
 * and mostly not link text; everything else is noise. A subtree scores prose - NOISE_WEIGHT *
 * noise; the best-scoring element is the content root.
 */

export interface Stats {
  /** Characters of text (whitespace runs count as one). */
  text: number
  link: number
  /** Characters in prose units. */
  good: number
  /** Characters in other units. */
  bad: number
  /** Inside an element whose class/id/role/tag marks it as page furniture. */
  boiler: boolean
}

export interface ContentPick {
  root: Element
  stats: Map<Element, Stats>
  /** Prose characters in the whole page, to judge whether the pick found enough of it. */
  pageGood: number
}

const NOISE_WEIGHT = 0.5
const CELL_MERGE = 60
const SHORT_LINK = 25
const DROP_TAGS = new Set([...NON_CONTENT_TAGS, 'option', 'map', 'dialog', 'head'])
const FURNITURE_TAGS = new Set(['nav', 'aside', 'footer', 'menu'])
// Strong words mark furniture even next to a content-ish word ("comment-body", "related-posts").
// Words that mark furniture even on a big element ("comment-body", "related-posts").
const STRONG_NOISE =
  /(?:^|[-_])(comments?|commentlist|comment-list|disqus|respond|replies|related|relatedposts|recommend(?:ed|ations)?|share|sharing|social|socials|newsletter|outbrain|taboola|cookies?|consent|gdpr|sidebar|breadcrumbs?|navbar|navigation|nav|footer|site-footer|site-header|header-nav|trending|popular|latest|most-read|mostread|more-stories|more-news|author-bio|tag-?list|tags|post-tags|byline|dateline|skip-link|jump-link|read-more|readmore|up-?next|next-article)(?:[-_]|$)/i
// Words that mark furniture only on an element holding little of the page's prose: sites put
// them on wrappers too ("elementor-widget-wrap", "Page-ad-margins", "modal-enabled").
const WEAK_NOISE =
  /(?:^|[-_])(menu|meta|info|extra|aside|tools|utility|bottom|topbar|alert|notice|subscribe|subscription|signup|popup|modal|masthead|promo|advert|advertisement|ads?|inline-ad|sponsored|sponsor|teasers?|carousel|ticker|rail|toolbar|pagination|pager|print|rss|timestamp|meta-data|post-meta|entry-meta|article-meta|caption-credit|credits?|bio|widget|banner|gallery|slideshow|slides?|lightbox)(?:[-_]|$)|^(hidden|is-hidden|visually-hidden|sr-only|screen-reader-text|invisible|d-none)$/i
const CONTENT_HINT = /(?:^|[-_])(article|content|entry|post|story|main|body|text|prose|blog|richtext|markdown)(?:[-_]|$)/i
const FURNITURE_ROLES = /^(navigation|complementary|contentinfo|banner|menu|menubar|search|dialog|alert)$/i
const NEVER_BY_CLASS = new Set(['html', 'body', 'main', 'article'])
// Words of a sentence whatever their class says (`<a class="popup">` tooltips, `<em class="meta">`):
// dropping them leaves holes in the text. Link lists are caught by link density instead.
const INLINE_TEXT = new Set(['a', 'em', 'strong', 'b', 'i', 'u', 'abbr', 'cite', 'q', 'mark', 'sup', 'sub', 'small'])
const SENTENCE = /[.!?。！？:;,]/

function classTokens(el: Element): string[] {
  const raw = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`.trim()
  return raw ? raw.split(/\s+/).filter((t) => !/^(has|no|with|is|show|js|toggle)-/i.test(t)) : []
}

/** Page furniture by tag, role, itemprop or class/id words: 2 certain, 1 only if small, 0 not. */
export function furnitureLevel(el: Element): 0 | 1 | 2 {
  if (FURNITURE_TAGS.has(el.name)) return 2
  const role = el.attribs.role
  if (role && FURNITURE_ROLES.test(role)) return 2
  if (/comment/i.test(el.attribs.itemprop ?? '') || /comment/i.test(el.attribs.itemtype ?? '')) return 2
  // Sites put page-state classes on these ("one-sidebar", "url-breadcrumb"): never judge them by class.
  if (NEVER_BY_CLASS.has(el.name) || INLINE_TEXT.has(el.name)) return 0
  const tokens = classTokens(el)
  if (tokens.length === 0) return 0
  if (tokens.some((t) => STRONG_NOISE.test(t))) return tokens.some((t) => CONTENT_HINT.test(t)) ? 1 : 2
  return tokens.some((t) => WEAK_NOISE.test(t)) && !tokens.some((t) => CONTENT_HINT.test(t)) ? 1 : 0
}

export const isFurniture = (el: Element) => furnitureLevel(el) > 0

function isHidden(el: Element): boolean {
  const a = el.attribs
  if (a.hidden !== undefined || a['aria-hidden'] === 'true') return true
  const style = a.style
  return !!style && /(display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style)
}

/** Removes what is never content: scripts, styles, forms' controls, comments and hidden elements. */
export function pruneDocument(root: ParentNode): void {
  const doomed: AnyNode[] = []
  const visit = (node: ParentNode) => {
    for (const c of node.children) {
      if (c.type === 'comment' || c.type === 'directive' || c.type === 'cdata') doomed.push(c)
      else if (isElement(c)) {
        if (DROP_TAGS.has(c.name) || isHidden(c)) doomed.push(c)
        else visit(c)
      }
    }
  }
  visit(root)
  removeNodes(doomed)
}

const visibleLength = (s: string) => {
  // Cheaper than collapse().length and close enough: whitespace runs count as one.
  let n = 0
  let space = true
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const ws = c === 32 || c === 10 || c === 9 || c === 13 || c === 160 || c === 12
    if (ws) {
      if (!space) n++
      space = true
    } else {
      n++
      space = false
    }
  }
  return space && n > 0 ? n - 1 : n
}

interface Inline {
  text: number
  link: number
  punct: boolean
}

/** One post-order pass: per-element stats, unit by unit. */
export function measure(root: Element | Document): Map<Element, Stats> {
  // Pass 1 ignores furniture so pass 2 can tell a small "widget" from a wrapper holding the article.
  const raw = measureWith(root, () => false, new Map())
  let page = 0
  for (const c of (root as ParentNode).children) if (isElement(c)) page += raw.get(c)?.good ?? 0
  const furniture = (el: Element) => {
    const level = furnitureLevel(el)
    return level === 2 || (level === 1 && (raw.get(el)?.good ?? 0) < 0.3 * page)
  }
  return measureWith(root, furniture, raw)
}

function measureWith(root: Element | Document, furniture: (el: Element) => boolean, reuse: Map<Element, Stats>): Map<Element, Stats> {
  const stats = reuse
  const visit = (el: Element, inLink: boolean, boiler: boolean): Inline => {
    const own: Stats = { text: 0, link: 0, good: 0, bad: 0, boiler }
    const inline: Inline = { text: 0, link: 0, punct: false }
    const link = inLink || el.name === 'a'
    for (const c of el.children) {
      if (isText(c)) {
        const n = visibleLength(c.data)
        if (n === 0) continue
        inline.text += n
        if (link) inline.link += n
        if (!inline.punct && SENTENCE.test(c.data)) inline.punct = true
      } else if (isElement(c)) {
        const childBoiler = boiler || furniture(c)
        const sub = visit(c, link, childBoiler)
        const cs = stats.get(c)!
        own.text += cs.text
        own.link += cs.link
        own.good += cs.good
        own.bad += cs.bad
        inline.text += sub.text
        inline.link += sub.link
        inline.punct ||= sub.punct
      }
    }
    // A short table cell is one field of its row: "1." | "TS Göppingen" | "50,59" reads as one line
    // of data, so its text is judged with its row's rather than as many tiny noise units.
    const cellOfRow = (el.name === 'td' || el.name === 'th') && inline.text < CELL_MERGE
    const isBlock = (BLOCK_TAGS.has(el.name) && !cellOfRow) || el.name === 'br'
    if (isBlock && inline.text > 0) {
      // Close this unit: its direct inline text is judged here, once.
      const density = inline.link / inline.text
      const prose = !boiler && density < 0.35 && (HEADING_TAGS.has(el.name) ? inline.text >= 10 : inline.text >= 60 || (inline.text >= 25 && inline.punct))
      if (prose) own.good += inline.text - inline.link
      else own.bad += inline.text
      own.text += inline.text
      own.link += inline.link
      stats.set(el, own)
      return { text: 0, link: 0, punct: false }
    }
    stats.set(el, own)
    return inline
  }
  const top = root.type === 'root' ? root : root
  const shell: Element = top as Element
  const children = (shell as ParentNode).children
  const total: Stats = { text: 0, link: 0, good: 0, bad: 0, boiler: false }
  for (const c of children) {
    if (!isElement(c)) continue
    const sub = visit(c, false, furniture(c))
    const cs = stats.get(c)!
    total.text += cs.text + sub.text
    total.good += cs.good
    total.bad += cs.bad + sub.text
  }
  if (root.type !== 'root') stats.set(root as Element, total)
  return stats
}

/** The element whose subtree holds the most prose net of noise. */
export function pickContentRoot(doc: Document): ContentPick | null {
  const stats = measure(doc)
  let best: Element | null = null
  let bestScore = -Infinity
  let pageGood = 0
  for (const [el, s] of stats) {
    if (el.name === 'html') pageGood = s.good
    if (s.good === 0 || s.boiler) continue
    const score = s.good - NOISE_WEIGHT * s.bad
    if (score > bestScore || (score === bestScore && best && isAncestor(el, best))) {
      best = el
      bestScore = score
    }
  }
  if (pageGood === 0) for (const s of stats.values()) pageGood = Math.max(pageGood, s.good)
  return best ? { root: best, stats, pageGood } : null
}

function isAncestor(a: Element, b: Element): boolean {
  for (let p = b.parent; p; p = p.parent) if (p === a) return true
  return false
}

// Short link-only lines that navigate rather than say something, in the languages we see most.
const NAV_LINK =
  /^(?:back|zurück|retour|volver|indietro|home|start(?:seite)?|more|mehr|weiter|next|previous|prev|top|(?:back )?to top|nach oben|all \S+|alle \S+|tous les \S+|toutes les \S+)(?:\W.{0,20})?$/i

const NOISE_LINE =
  /^(advertisements?|sponsored( content)?|share( this( article| story)?)?( on \w+)?:?|like this:?|read more|related( articles| stories| posts| content)?|more from .{0,40}|you may also like|recommended( for you)?|continue reading( below)?|click here.*|sign up.*newsletter.*|subscribe( now)?|follow us.*|image( source)?:.{0,60}|photo:.{0,80}|getty images|skip (to )?(main )?content|comments?( \(\d+\))?|\d+ comments?|print|email|tweet|pin it|copy link|\d+ min(ute)?s? read|.{0,60}\u2022 \d+ min(ute)?s? read)$/i

/**
 * Removes what sits inside the content root but is not content: furniture subtrees, link lists,
 * short noise lines ("Advertisement", "Share this"), and the leading heading when it repeats the
 * title (the title is returned on its own).
 */
export function cleanContent(pick: ContentPick, title: string | null, pageUrl?: string): void {
  const { root, stats } = pick
  const rootGood = stats.get(root)?.good ?? 0
  let top: ParentNode = root
  while (top.parent) top = top.parent
  const site = pageUrl ? siteOf(top, pageUrl, root) : null
  const index = isTeaserIndex(root)
  const side = new Set(trailingSideBlocks(pick, title))
  const doomed: Element[] = [...side]
  const visit = (el: Element) => {
    for (const c of el.children) {
      if (!isElement(c)) continue
      const s = stats.get(c)
      if (!s || side.has(c)) continue
      if (shouldDrop(c, s, rootGood, site, index)) doomed.push(c)
      else visit(c)
    }
  }
  visit(root)
  removeNodes(doomed)
  if (title) dropTitleHeading(root, title)
}

const KEEP_SHORT = new Set([
  'pre',
  'table',
  'figure',
  'img',
  'picture',
  'blockquote',
  'ol',
  'ul',
  'dl',
  'code',
  ...HEADING_TAGS,
  'p',
  'li',
  'td',
  'th',
  'tr',
  'tbody',
  'thead',
  'b',
  'strong',
  'em',
  'i',
  'a',
  'span',
  'sup',
  'sub',
  'br',
  'hr',
])

// Class words of a caption written as a plain element: "caption", "wp-caption-text", "image__caption",
// "mediaCaption". Wrappers that only say whether there is one ("no-caption") are not captions.
const CAPTION_CLASS = /(?:^|[-_])caption(?:s|[-_]+(?:text|full|truncated))?$|[a-z]Caption$/

/** A caption: figcaption, or a media-free element classed as one (a wrapper with the image stays). */
function isCaption(el: Element): boolean {
  if (el.name === 'figcaption') return true
  return classTokens(el).some((t) => CAPTION_CLASS.test(t) && !/^(?:no|without)/i.test(t)) && !hasMedia(el)
}

const LISTS = new Set(['ul', 'ol', 'li'])

function shouldDrop(el: Element, s: Stats, rootGood: number, site: Site | null, index: boolean): boolean {
  if (s.boiler || isCaption(el)) return true
  if (s.text === 0) return false
  // On a list of teasers the linked headlines are what the page says.
  if (index && HEADING_TAGS.has(el.name)) return false
  const density = s.link / s.text
  if (density > 0.5 && s.good < 0.25 * rootGood && el.name !== 'a') {
    // A list whose every link leaves the site cites sources, products or downloads; lists of
    // same-site links are "related" and navigation.
    if (site && LISTS.has(el.name) && linksLeaveSite(el, site)) return false
    // Link-heavy block: a related list, tag cloud or "Read more: ..." line.
    // A paragraph that is one short link ("link", "Download the data") is part of the text; a
    // headline-length one is a teaser for another article.
    if (el.name !== 'p') return true
    return !(s.text > 200 || (s.link < SHORT_LINK && !NAV_LINK.test(collapse(textOf(el)))))
  }
  if (s.text < 120) {
    const line = collapse(textOf(el))
    if (NOISE_LINE.test(line)) return true
    // Headings and table cells with a date are a section or a field of data, not a dateline.
    if (!HEADING_TAGS.has(el.name) && el.name !== 'td' && el.name !== 'th' && isDateline(line)) return true
  }
  // A heading that is only a link is a teaser ("Related: ..."), not a section of this article.
  if (HEADING_TAGS.has(el.name) && density > 0.9) return true
  // Short lines carrying a <time> are datelines and bylines.
  if (s.text < 100 && s.good === 0 && el.name !== 'p' && findTime(el)) return true
  if (s.good === 0 && !KEEP_SHORT.has(el.name) && s.text < 100 && !hasMedia(el)) return true
  return false
}

function findTime(el: Element): boolean {
  for (const c of el.children) if (isElement(c) && (c.name === 'time' || findTime(c))) return true
  return false
}

function hasMedia(el: Element): boolean {
  for (const c of el.children) {
    if (!isElement(c)) continue
    if (
      c.name === 'img' ||
      c.name === 'picture' ||
      c.name === 'video' ||
      c.name === 'table' ||
      c.name === 'pre' ||
      c.name === 'ul' ||
      c.name === 'ol' ||
      HEADING_TAGS.has(c.name) ||
      hasMedia(c)
    )
      return true
  }
  return false
}
