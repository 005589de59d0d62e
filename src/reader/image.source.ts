import type { Element } from 'domhandler'

/**
 * Which URL an `<img>` stands for, and which images are not pictures of the page at all (tracking
 * pixels, spacers, emoji). Shared by the Markdown writer, the HTML serializer and `images[]`, so the
 * URL in `![alt](url)` is the one listed in `images`.
 */

// Lazy loaders keep the real address here and put a placeholder (or nothing) in `src`.
const LAZY_ATTRS = ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-hi-res-src', 'data-full-src', 'data-url']
const SRCSET_ATTRS = ['srcset', 'data-srcset', 'data-lazy-srcset']

// Files that only hold a place or count a visit: a lazy loader's blank, a spacer, a 1x1 beacon.
// Whole file names only for the short words ("google-pixel.jpg" is a photo of a phone).
const PLACEHOLDER_FILE =
  /(?:^|\/)(?:(?:blank|spacer|pixel|transparent|trans|placeholder|lazy|loading|loader|1x1|clear|empty|grey|gray|beacon)\.(?:gif|png|svg|jpe?g|webp)|[\w.-]*(?:placeholder|spacer|lazyload|lazy-load|1x1)[\w.-]*\.(?:gif|png|svg|webp))(?:[?#]|$)/i

// Hosts (and host/path prefixes) that serve only analytics beacons.
const TRACKER =
  /^https?:\/\/(?:[^/]+\.)?(?:facebook\.com\/tr\b|google-analytics\.com\/|googletagmanager\.com\/|doubleclick\.net\/|scorecardresearch\.com\/|quantserve\.com\/|bat\.bing\.com\/|analytics\.twitter\.com\/|t\.co\/i\/adsct|pixel\.wp\.com\/|stats\.wp\.com\/|px\.ads\.linkedin\.com\/|ct\.pinterest\.com\/|mc\.yandex\.ru\/|imrworldwide\.com\/|pixel\.quantserve\.com\/|sb\.scorecardresearch\.com\/)/i

const usable = (v: string | undefined): string | undefined => {
  const s = v?.trim()
  return s && !/^data:/i.test(s) && !PLACEHOLDER_FILE.test(s) ? s : undefined
}

/**
 * The candidate with the most pixels in a `srcset` (HTML "parse a srcset attribute"; written here
 * because no dependency parses srcset). URLs may hold commas (`c_fill,w_400`): a candidate's URL
 * runs to the next whitespace, and its descriptors to the next comma outside parentheses.
 */
export function largestSrcsetCandidate(srcset: string): string | undefined {
  const s = srcset
  let best: { url: string; w: number; x: number } | undefined
  let i = 0
  while (i < s.length) {
    while (i < s.length && (/\s/.test(s[i]!) || s[i] === ',')) i++
    if (i >= s.length) break
    let start = i
    while (i < s.length && !/\s/.test(s[i]!)) i++
    let url = s.slice(start, i)
    let descriptor = ''
    if (url.endsWith(',')) url = url.replace(/,+$/, '')
    else {
      start = i
      let depth = 0
      while (i < s.length && !(s[i] === ',' && depth === 0)) {
        if (s[i] === '(') depth++
        else if (s[i] === ')') depth = Math.max(0, depth - 1)
        i++
      }
      descriptor = s.slice(start, i)
      i++
    }
    if (!usable(url)) continue
    const w = Number(/(\d+)w\b/.exec(descriptor)?.[1] ?? 0)
    const x = Number(/([\d.]+)x\b/.exec(descriptor)?.[1] ?? (w ? 0 : 1))
    if (!best || w > best.w || (w === best.w && x > best.x)) best = { url, w, x }
  }
  return best?.url
}

function fromSrcset(el: Element): string | undefined {
  for (const name of SRCSET_ATTRS) {
    const v = el.attribs[name]
    const url = v ? largestSrcsetCandidate(v) : undefined
    if (url) return url
  }
  return undefined
}

/**
 * The image a browser ends up showing, unresolved: a lazy loader's real address when `src` is a
 * placeholder (or the element is marked lazy: `src` is then a blurred preview), else `src`, else
 * the largest `srcset` candidate, else, inside `<picture>`, the largest of its `<source>`s.
 */
export function imageSource(el: Element): string | undefined {
  const a = el.attribs
  const lazy = LAZY_ATTRS.map((name) => usable(a[name])).find(Boolean)
  const src = usable(a.src)
  if (lazy && (!src || /lazy/i.test(a.class ?? ''))) return lazy
  if (src) return src
  const set = fromSrcset(el)
  if (set) return set
  const picture = el.parent as Element | null
  if (picture?.name === 'picture') {
    for (const c of picture.children) {
      if (c.type !== 'tag' || (c as Element).name !== 'source') continue
      const url = fromSrcset(c as Element) ?? usable((c as Element).attribs.src)
      if (url) return url
    }
  }
  return undefined
}

/** A declared width or height in CSS pixels (`"1"`, `"1px"`); undefined for percentages and garbage. */
export function declaredSize(el: Element, name: 'width' | 'height'): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)(?:px)?\s*$/i.exec(el.attribs[name] ?? '')
  return m ? Number(m[1]) : undefined
}

/** An emoji drawn as an image (WordPress and others): its alt text is the character. */
export const isEmoji = (el: Element) => /(?:^|\s)(?:emoji|wp-smiley)(?:\s|$)/i.test(el.attribs.class ?? '')

/**
 * Not a picture of the page whatever its place: a tracking pixel (declared at most 1 px on every
 * side it declares, or served by an analytics beacon host), or an emoji drawn as an image.
 */
export function isNonImage(el: Element, url: string): boolean {
  // Every declared side at most 1 px: `width="570" height="0"` is a CMS writing "auto", not a pixel.
  const sides = [declaredSize(el, 'width'), declaredSize(el, 'height')].filter((d) => d !== undefined)
  if (sides.length > 0 && sides.every((d) => d <= 1)) return true
  return isEmoji(el) || TRACKER.test(url)
}
