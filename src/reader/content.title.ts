import type { Element } from 'domhandler'
import { findFirst, HEADING_TAGS, isElement, isText, removeNode, textOf } from './dom.utils.ts'

/**
 * The content root often starts with the page's headline. The title is returned on its own, so
 * the heading that repeats it is removed from the content.
 */

const normTitle = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()

export function dropTitleHeading(root: Element, title: string): void {
  const want = normTitle(title)
  const matches = (h: Element) => {
    const got = normTitle(textOf(h))
    return !!got && (got === want || (want.includes(got) && got.length > 0.6 * want.length) || (got.includes(want) && want.length > 0.6 * got.length))
  }
  // The page's own title heading, wherever the template nests it: the first h1, else the first heading.
  const h1 = findFirst(root, (el) => el.name === 'h1')
  const first = h1 ?? findFirst(root, (el) => HEADING_TAGS.has(el.name))
  if (!first) return
  // Sites word the headline differently from <title> ("... in 11 countries" vs "... in Mexico and
  // 9 more"): a lone h1 that opens the content and shares most of its words with it is the headline.
  if (matches(first) || (first === h1 && sharesWords(textOf(h1), want) && leadsContent(root, h1))) removeNode(first)
}

const HEADLINE_SHARED = 0.5
const HEADLINE_LEAD = 100

function sharesWords(heading: string, title: string): boolean {
  const words = normTitle(heading).split(' ').filter(Boolean)
  if (words.length < 2) return false
  const inTitle = new Set(title.split(' '))
  return words.filter((w) => inTitle.has(w)).length >= HEADLINE_SHARED * words.length
}

/** Whether `h` is the only h1 under `root` and at most a kicker line of text comes before it. */
function leadsContent(root: Element, h: Element): boolean {
  let before = 0
  let seen = false
  let other = false
  const visit = (el: Element) => {
    for (const c of el.children) {
      if (c === h) seen = true
      else if (isText(c)) {
        if (!seen) before += c.data.trim().length
      } else if (isElement(c)) {
        if (c.name === 'h1') other = true
        visit(c)
      }
    }
  }
  visit(root)
  return !other && before < HEADLINE_LEAD
}
